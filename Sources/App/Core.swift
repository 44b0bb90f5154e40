public import Cryptography
public import Foundation
public import Postgres
public import Storage
public import Support
public import SyncAPI
public import SyncEngine
import SyncProtocol

/// What the features of one FieldSync process are built from: the database, the schema, and
/// the services several features share (settings, accounts, the sync engine, the checks of
/// device routes, and the notifications of other processes' changes).
///
/// ```swift
/// let core = try Core.open(configuration, database: host.configuration, logger: logger)
/// let orders = OrderService(store: core.syncStore, changes: core.changes)
/// ```
public final class Core: Sendable {
    public let configuration: AppConfiguration
    public let database: PostgresClient
    /// The collection schema devices sync against.
    public let schema: Schema
    public let settings: PostgresSettingsStore
    public let accounts: PostgresAccountStore
    public let passwords: PasswordHasher
    public let syncStore: PostgresSyncStore
    public let pushes: PushService
    /// Conflict resolutions and order decisions, written like pushes.
    public let changes: ServerChangeService
    public let authenticator: Authenticator
    public let principals: PrincipalResolver
    /// What every device route checks before its handler.
    public let deviceAccess: DeviceAccess
    /// Other processes' account and settings changes; features add what they must forget.
    public let notifications: ChangeNotifications
    public let logger: Logger

    private init(configuration: AppConfiguration, database: PostgresClient, postgres: PostgresConfiguration, schema: Schema, logger: Logger) {
        self.configuration = configuration
        self.database = database
        self.schema = schema
        self.logger = logger
        settings = PostgresSettingsStore(database: database)
        accounts = PostgresAccountStore(database: database)
        passwords = PasswordHasher(iterations: configuration.passwordIterations)
        syncStore = PostgresSyncStore(database: database, attachments: PostgresAttachmentStore(database: database), logger: logger)
        pushes = PushService(
            store: syncStore,
            processor: PushProcessor(
                schema: schema, configuration: SyncConfiguration(maxDeferredOpsPerDevice: configuration.maxDeferredOpsPerDevice),
                digest: { SHA256.hash($0).hexString }),
            logger: logger)
        changes = ServerChangeService(store: syncStore, schema: schema)
        authenticator = Authenticator(accounts: accounts, cacheLifetime: Double(configuration.tokenCacheSeconds))
        principals = PrincipalResolver(accounts: accounts)
        deviceAccess = DeviceAccess(
            authenticator: authenticator, principals: principals,
            gate: SyncGate(settings: settings, limiter: RateLimiter(now: configuration.rateLimitClock)), settings: settings)
        notifications = ChangeNotifications(database: postgres, logger: logger)
        notifications.on(.settings) { [settings] in settings.invalidate() }
        notifications.on(.accounts) { [authenticator] in authenticator.forgetAll() }
    }

    /// Connects the pool and brings the schema up to date.
    /// - Throws: a `ConfigurationError` for a schema file that is not valid, or a database error.
    public static func open(_ configuration: AppConfiguration, database: PostgresConfiguration, logger: Logger) throws -> Core {
        // An invalid schema stops the start before anything touches the database.
        let schema = try loadSchema(configuration.schemaFile)
        var options = PostgresClient.Options()
        options.maxConnections = configuration.databasePoolSize
        options.sessionTimeouts = configuration.databaseTimeouts
        let client = PostgresClient(configuration: database, options: options, logger: logger)
        do {
            let migrations = configuration.resourcesDirectory.appendingPathComponent("Migrations")
            let applied = try Migrator(client: client, directory: migrations, logger: logger).migrate()
            if !applied.isEmpty { logger.info("applied migrations: \(applied.joined(separator: ", "))") }
        } catch {
            client.shutdown()
            throw error
        }
        return Core(configuration: configuration, database: client, postgres: database, schema: schema, logger: logger)
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

    /// The server secret `name` (32 random bytes, created once and shared by every process).
    public func secret(named name: String) throws -> Data {
        try SecretStore(database: database).secret(named: name)
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

    /// Closes the connection pool.
    public func close() {
        database.shutdown()
    }
}
