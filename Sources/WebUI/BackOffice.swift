public import Cryptography
public import Foundation
public import HTTP

public import Support
public import SyncEngine
import Templating

/// The web back-office: sign-in, sessions, the role-checked pages and their static files.
///
/// ```swift
/// let setup = try BackOffice.Setup(resources: resourcesDirectory, csrfKey: key, configuration: WebConfiguration())
/// let backOffice = BackOffice(setup: setup, dependencies: dependencies, logger: logger)
/// backOffice.register(on: router)
/// ```
public final class BackOffice: Sendable {
    /// What the back-office loads once at start: templates, static files and its CSRF key.
    public struct Setup: Sendable {
        let templates: TemplateLibrary
        let files: StaticFiles
        let csrfKey: Data
        let configuration: WebConfiguration

        /// Loads `Templates/` and `Public/` from `resources`; `csrfKey` signs the forms' tokens
        /// (the same on every server process, so a form posted to another one verifies).
        /// - Throws: `TemplateError` for a template that does not parse, or a read error.
        public init(resources: URL, csrfKey: Data, configuration: WebConfiguration) throws {
            templates = try TemplateLibrary(directory: resources.appendingPathComponent("Templates"))
            files = try StaticFiles(directory: resources.appendingPathComponent("Public"))
            self.csrfKey = csrfKey
            self.configuration = configuration
        }
    }

    /// The stores and services the pages read and change.
    public struct Dependencies: Sendable {
        public var accounts: any AccountStore
        public var settings: any SettingsStore
        public var sessions: any WebSessionStore
        public var dashboard: any DashboardStore
        public var login: LoginService
        public var passwords: PasswordHasher
        public var conflicts: any ConflictStore
        public var syncCentre: any SyncCentreStore
        public var teamRollup: any TeamRollupStore
        /// Applies conflict resolutions made in the queue.
        public var changes: ServerChangeService
        /// The live-event stream of a signed-in user who may open the live feed; the
        /// back-office does not depend on the device API that builds it.
        /// The live-feed stream of a signed-in user, given how to tell that their session still holds.
        public var liveFeed: @Sendable (UserAccount, Request, _ stillSignedIn: @escaping @Sendable () throws -> Bool) throws -> Response
        public var orderQueue: any OrderStore
        /// Confirms and rejects orders, exactly as the device API does.
        public var orders: OrderService

        public init(
            accounts: any AccountStore, settings: any SettingsStore, sessions: any WebSessionStore, dashboard: any DashboardStore,
            login: LoginService, passwords: PasswordHasher, conflicts: any ConflictStore, syncCentre: any SyncCentreStore,
            teamRollup: any TeamRollupStore,
            changes: ServerChangeService, liveFeed: @escaping @Sendable (UserAccount, Request, _ stillSignedIn: @escaping @Sendable () throws -> Bool) throws -> Response, orderQueue: any OrderStore,
            orders: OrderService
        ) {
            self.accounts = accounts
            self.settings = settings
            self.sessions = sessions
            self.dashboard = dashboard
            self.login = login
            self.passwords = passwords
            self.conflicts = conflicts
            self.syncCentre = syncCentre
            self.teamRollup = teamRollup
            self.changes = changes
            self.liveFeed = liveFeed
            self.orderQueue = orderQueue
            self.orders = orders
        }
    }

    /// The areas that have pages so far, in navigation order.
    static let availableAreas: [Area] = [.dashboard, .orders, .conflicts, .syncCentre, .teamRollup, .users, .settings]

    private let setup: Setup
    private let dependencies: Dependencies
    private let sessions: SessionManager
    private let renderer: PageRenderer
    private let logger: Logger

    public init(setup: Setup, dependencies: Dependencies, logger: Logger) {
        self.setup = setup
        self.dependencies = dependencies
        self.sessions = SessionManager(
            store: dependencies.sessions, accounts: dependencies.accounts, csrf: CSRFProtection(key: setup.csrfKey),
            configuration: setup.configuration)
        self.renderer = PageRenderer(templates: setup.templates, files: setup.files, available: Self.availableAreas)
        self.logger = logger
    }

    /// Adds every back-office route and static file to `router`, and the middleware that
    /// answers unknown non-API paths with the HTML 404 page.
    public func register(on router: Router) {
        router.use(ErrorPages(sessions: sessions, renderer: renderer))
        setup.files.register(on: router)
        let routes = PageRoutes(router: router, sessions: sessions, renderer: renderer, logger: logger)
        let web = setup.configuration
        let deps = dependencies
        LoginController(login: deps.login, sessions: sessions, csrf: CSRFProtection(key: setup.csrfKey), renderer: renderer).register(on: routes)
        DashboardController(dashboard: deps.dashboard, settings: deps.settings, renderer: renderer, configuration: web).register(on: routes)
        UsersController(accounts: deps.accounts, passwords: deps.passwords, renderer: renderer, configuration: web).register(on: routes)
        UserController(accounts: deps.accounts, passwords: deps.passwords, sessions: sessions, renderer: renderer, configuration: web)
            .register(on: routes)
        DevicesController(accounts: deps.accounts, renderer: renderer, configuration: web).register(on: routes)
        SettingsController(settings: deps.settings, renderer: renderer, configuration: web).register(on: routes)
        ConflictQueueController(conflicts: deps.conflicts, changes: deps.changes, renderer: renderer, configuration: web).register(on: routes)
        SyncCentreController(store: deps.syncCentre, settings: deps.settings, renderer: renderer, configuration: web).register(on: routes)
        TeamController(rollups: deps.teamRollup, renderer: renderer, configuration: web).register(on: routes)
        OrdersController(queue: deps.orderQueue, orders: deps.orders, renderer: renderer, configuration: web).register(on: routes)
        routes.add(.GET, Area.liveEvents.path, area: .liveEvents) { [sessions] context in
            try deps.liveFeed(context.session.user, context.request) { try sessions.isLive(context.session) }
        }
    }
}
