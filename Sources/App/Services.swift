import Cryptography
import Foundation
import Postgres
import Storage
import SyncProtocol
import Support
import SyncAPI
import SyncEngine
import WebUI
import Worker

/// The long-lived services of one FieldSync process, built once from the configuration
/// and passed explicitly to controllers.
public final class Services: Sendable {
    public let database: PostgresClient
    public let accounts: PostgresAccountStore
    public let settings: PostgresSettingsStore
    public let secrets: SecretStore
    public let passwords: PasswordHasher
    public let login: LoginService
    public let authenticator: Authenticator
    /// The collection schema devices sync against.
    public let schema: Schema
    public let principals: PrincipalResolver
    public let syncStore: PostgresSyncStore
    public let pushes: PushService
    public let serverChanges: ServerChangeService
    public let pulls: PullService
    public let visits: PostgresSyncVisits
    public let conflicts: PostgresConflictStore
    public let gate: SyncGate
    /// Signs and checks pull cursors.
    public let cursors: PullCursorCodec
    /// Resumable uploads and downloads of attachments.
    public let attachments: AttachmentService
    /// Background jobs (retention); started by `Application` unless turned off.
    public let worker: Worker
    public let backOffice: BackOffice
    /// Orders for the device API and the back-office.
    public let orders: OrderService
    /// This process's live-event fan-out.
    public let events: EventHub
    /// The live-event streams: `GET /v1/events` and the back-office feed.
    public let liveEvents: LiveEventsController
    /// Wakes this process when another one changes accounts or settings.
    private let listener: PostgresListener
    let logger: Logger

    init(
        database: PostgresClient, configuration: PostgresConfiguration, schema: Schema, passwords: PasswordHasher, cursorKey: Data,
        workerInterval: Int, tokenCacheSeconds: Int, files: AttachmentFiles, web: BackOffice.Setup, liveEvents: EventHub.Options, logger: Logger
    ) {
        let accounts = PostgresAccountStore(database: database)
        let settings = PostgresSettingsStore(database: database)
        let authenticator = Authenticator(accounts: accounts, cacheLifetime: Double(tokenCacheSeconds))
        self.database = database
        self.accounts = accounts
        self.settings = settings
        self.secrets = SecretStore(database: database)
        self.passwords = passwords
        let login = LoginService(accounts: accounts, hasher: passwords)
        self.login = login
        self.authenticator = authenticator
        self.schema = schema
        let principals = PrincipalResolver(accounts: accounts)
        self.principals = principals
        let attachmentStore = PostgresAttachmentStore(database: database)
        let syncStore = PostgresSyncStore(database: database, attachments: attachmentStore, logger: logger)
        self.syncStore = syncStore
        let pushes = PushService(
            store: syncStore, processor: PushProcessor(schema: schema, digest: { SHA256.hash($0).hexString }), logger: logger)
        self.pushes = pushes
        self.attachments = AttachmentService(
            store: attachmentStore, blobs: files.blobs, chunks: files.chunks, settings: settings, collections: Set(schema.collections.keys),
            listener: DeferredOpRelease(pushes: pushes, logger: logger), logger: logger)
        let serverChanges = ServerChangeService(store: syncStore, schema: schema)
        self.serverChanges = serverChanges
        let cursors = PullCursorCodec(key: cursorKey)
        self.cursors = cursors
        self.pulls = PullService(reader: PostgresPullReader(database: database), cursors: cursors)
        self.visits = PostgresSyncVisits(database: database)
        self.conflicts = PostgresConflictStore(database: database)
        self.gate = SyncGate(settings: settings, limiter: RateLimiter())
        self.worker = Worker(
            jobs: [
                RetentionJob(store: PostgresRetentionStore(database: database), settings: settings), UploadSessionJob(attachments: attachments),
            ],
            locks: PostgresJobLocks(database: database),
            interval: .seconds(workerInterval), logger: logger)
        let events = EventHub(feed: PostgresOutboxReader(database: database, logger: logger), options: liveEvents, logger: logger)
        self.events = events
        let orders = OrderService(store: syncStore, changes: serverChanges)
        self.orders = orders
        let feed = LiveEventsController(authenticator: authenticator, principals: principals, hub: events)
        self.liveEvents = feed
        self.backOffice = BackOffice(
            setup: web,
            dependencies: .init(
                accounts: accounts, settings: settings, sessions: PostgresWebSessionStore(database: database),
                dashboard: PostgresDashboardStore(database: database), login: login, passwords: passwords, conflicts: PostgresConflictStore(database: database),
                syncCentre: PostgresSyncCentreStore(database: database),
                teamRollup: PostgresTeamRollupStore(database: database), changes: serverChanges,
                liveFeed: { user, request, stillSignedIn in try feed.backOfficeFeed(for: user, request: request, stillSignedIn: stillSignedIn) },
                orderQueue: PostgresOrderStore(database: database), orders: orders),
            logger: logger)
        self.listener = PostgresListener(
            configuration: configuration, channels: [PostgresAccountStore.changeChannel, PostgresSettingsStore.changeChannel], logger: logger
        ) { channel, _ in
            guard channel == PostgresAccountStore.changeChannel else { return settings.invalidate() }
            authenticator.forgetAll()
            // A revoked token or a suspended user must not keep an open live feed either.
            events.recheckViewers()
        }
        self.logger = logger
        listener.start()
        events.start()
    }

    /// Connects the pool and brings the schema up to date.
    static func open(_ app: AppConfiguration, database: PostgresConfiguration, logger: Logger) throws -> Services {
        // An invalid schema stops the start before anything touches the database.
        let schema = try loadSchema(app.schemaFile)
        var options = PostgresClient.Options()
        options.maxConnections = app.databasePoolSize
        let client = PostgresClient(configuration: database, options: options, logger: logger)
        do {
            let applied = try Migrator(client: client, directory: app.resourcesDirectory.appendingPathComponent("Migrations"), logger: logger)
                .migrate()
            if !applied.isEmpty { logger.info("applied migrations: \(applied.joined(separator: ", "))") }
        } catch {
            client.shutdown()
            throw error
        }
        do {
            let cursorKey = try app.cursorSecret.map { Data($0.utf8) } ?? SecretStore(database: client).secret(named: "pull-cursor")
            let files = try AttachmentFiles(dataDirectory: app.dataDirectory, blobDirectory: app.blobDirectory)
            let web = try BackOffice.Setup(
                resources: app.resourcesDirectory, csrfKey: try SecretStore(database: client).secret(named: "csrf"), configuration: app.web)
            return Services(
                database: client, configuration: database, schema: schema, passwords: PasswordHasher(iterations: app.passwordIterations),
                cursorKey: cursorKey, workerInterval: app.workerInterval, tokenCacheSeconds: app.tokenCacheSeconds, files: files, web: web, liveEvents: app.liveEvents, logger: logger)
        } catch {
            client.shutdown()
            throw error
        }
    }

    /// The built-in schema, or the file's, with a message that names the file when it is invalid.
    static func loadSchema(_ file: URL?) throws -> Schema {
        guard let file else { return try Schema.builtIn() }
        do {
            return try Schema(jsonData: try Data(contentsOf: file))
        } catch {
            throw ConfigurationError("schema file \(file.path): \(error)")
        }
    }

    /// On a database without users, creates `admin` with the given or a random password,
    /// printed once to the console.
    func bootstrapFirstAdmin(password: String?) throws {
        guard try accounts.countUsers() == 0 else { return }
        let chosen = password ?? SecureRandom.token(byteCount: 12)
        do {
            _ = try accounts.createUser(username: "admin", role: .admin, teamId: nil, passwordHash: try passwords.hash(chosen))
        } catch AccountError.usernameTaken {
            return  // another instance starting at the same moment created it
        }
        if password == nil {
            print("Created the first admin account. User name: admin  Password: \(chosen)  (shown only this once)")
        } else {
            print("Created the first admin account \"admin\" with the password from FIELDSYNC_ADMIN_PASSWORD.")
        }
    }

    func close() {
        events.stop()
        worker.stop()
        listener.stop()
        database.shutdown()
    }
}
