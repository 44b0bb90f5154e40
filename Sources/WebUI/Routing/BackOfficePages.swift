public import Foundation
public import HTTP
public import Support
public import SyncEngine
import Synchronization
import Templating

/// A signed-in request that passed its role and CSRF checks: what back-office
/// handlers receive.
struct WebContext: Sendable {
    let request: Request
    let session: WebSession
    /// The posted form (empty for GET).
    let form: FormData
}

/// The web back-office on a router: sign-in sessions, the HTML error pages, the static files,
/// and the pages the features add (each feature folder has its `add…Pages` method).
///
/// ```swift
/// let setup = try BackOfficePages.Setup(resources: resourcesDirectory, csrfKey: key, configuration: WebConfiguration())
/// let backOffice = BackOfficePages(router: router, setup: setup, sessions: sessionStore, accounts: accounts, logger: logger)
/// backOffice.addOrderPages(queue: orderStore, orders: orderService)
/// ```
///
/// Every page is wrapped in the checks that protect it:
///
/// 1. no live session → `303` to `/login?next=…`;
/// 2. the viewer's role lacks the access the route needs (`view` for GET, `manage` for
///    anything else, per `AccessPolicy`) → the 403 page;
/// 3. a state-changing request without this session's CSRF token → the 403 page, before
///    the handler runs, so nothing changes;
/// 4. errors from the handler → the HTML error page for their status (400 for a list's
///    damaged `after` link, 500 for anything that is not a `PageError` or an `HTTPFailure`, logged).
///
/// The navigation lists the areas whose main page (`area.path`) was added, in the order added.
public final class BackOfficePages: Sendable {
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

    let router: Router
    let sessions: SessionManager
    let renderer: PageRenderer
    let csrf: CSRFProtection
    let configuration: WebConfiguration
    let logger: Logger
    private let navigation = Navigation()

    /// Adds the HTML 404 and 405 answers for unknown non-API paths and the static files to
    /// `router`; pages follow with the features' `add…Pages` calls.
    public init(router: Router, setup: Setup, sessions: any WebSessionStore, accounts: any AccountStore, logger: Logger) {
        self.router = router
        csrf = CSRFProtection(key: setup.csrfKey)
        self.sessions = SessionManager(store: sessions, accounts: accounts, csrf: csrf, configuration: setup.configuration)
        renderer = PageRenderer(templates: setup.templates, files: setup.files, navigation: navigation)
        configuration = setup.configuration
        self.logger = logger
        router.use(ErrorPages(sessions: self.sessions, renderer: renderer))
        setup.files.register(on: router)
    }

    /// Adds a page for signed-in users who may open `area` (nil: any signed-in user).
    func add(_ method: HTTPMethod, _ path: String, area: Area?, handler: @escaping @Sendable (WebContext) throws -> Response) {
        if let area, method == .GET, path == area.path { navigation.add(area) }
        let access: Access = method == .GET ? .view : .manage
        router.add(method, path) { [self] request in
            // Failures before the session is known (the database is down) still get an HTML page.
            try rendering(errorsOf: { try guarded(request, access, area, handler) }, session: nil, path: path)
        }
    }

    /// Adds a page anyone may open (the sign-in page); errors still render as HTML.
    func addPublic(_ method: HTTPMethod, _ path: String, handler: @escaping @Sendable (Request) throws -> Response) {
        router.add(method, path) { [self] request in
            try rendering(errorsOf: { try handler(request) }, session: nil, path: path)
        }
    }

    static let csrfMessage =
        "This form has expired or did not come from this back-office, so nothing was changed. Go back, reload the page and try again."

    /// Runs the session, role and CSRF checks, then the handler.
    private func guarded(
        _ request: Request, _ access: Access, _ area: Area?, _ handler: (WebContext) throws -> Response
    ) throws -> Response {
        let session: WebSession
        switch try sessions.lookup(request) {
        case .none: return .redirect(to: SafeRedirect.loginURL(returningTo: request, expired: false))
        case .ended: return .redirect(to: SafeRedirect.loginURL(returningTo: request, expired: true))
        case .live(let live): session = live
        }
        if let area, !AccessPolicy.permits(session.user.role, access, in: area) {
            return try renderer.error(403, session: session)
        }
        let form = access == .view ? FormData(encoded: "") : FormData(request)
        if access == .manage, !sessions.verifies(form, in: session) {
            return try renderer.error(403, session: session, message: Self.csrfMessage)
        }
        return try rendering(
            errorsOf: { try handler(WebContext(request: request, session: session, form: form)) }, session: session, path: request.path)
    }

    /// Runs `body`, answering its errors with the HTML error page.
    private func rendering(errorsOf body: () throws -> Response, session: WebSession?, path: String) throws -> Response {
        do {
            return try body()
        } catch let error as PageError {
            return try renderer.error(error.status, session: session)
        } catch let failure as HTTPFailure {
            return try renderer.error(failure.status, session: session)
        } catch is PageCursor.Invalid {
            return try renderer.error(400, session: session, message: Pager.invalidMessage)
        } catch let error as any HTTPResponseError {
            // An answer of its own, such as the live feed's 429 with Retry-After past its stream caps.
            return error.response()
        } catch {
            logger.error("back-office page failed", metadata: ["http.path": path, "error": "\(error)"])
            return try renderer.error(500, session: session)
        }
    }
}
