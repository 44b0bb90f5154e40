import Cryptography
import Foundation
import Postgres
import Storage
import SyncProtocol
import Support
import SyncAPI
import SyncEngine

/// The long-lived services of one FieldSync process, built once from the configuration
/// and passed explicitly to controllers.
public final class Services: Sendable {
    public let database: PostgresClient
    public let accounts: AccountStore
    public let settings: SettingsStore
    public let secrets: SecretStore
    public let passwords: PasswordHasher
    public let login: LoginService
    public let authenticator: Authenticator
    /// The collection schema devices sync against.
    public let schema: Schema
    public let gate: SyncGate
    public let attachments: AttachmentService
    /// Wakes this process when another one changes accounts or settings.
    private let listener: PostgresListener
    let logger: Logger

    init(
        database: PostgresClient, configuration: PostgresConfiguration, schema: Schema, passwords: PasswordHasher, files: AttachmentFiles,
        logger: Logger
    ) throws {
        let accounts = AccountStore(database: database)
        let settings = SettingsStore(database: database)
        let authenticator = Authenticator(accounts: accounts)
        self.database = database
        self.accounts = accounts
        self.settings = settings
        self.secrets = SecretStore(database: database)
        self.passwords = passwords
        self.login = LoginService(accounts: accounts, hasher: passwords)
        self.authenticator = authenticator
        self.schema = schema
        let limits = try settings.current()
        self.gate = SyncGate(
            settings: settings, limiter: RateLimiter(perSecond: Double(limits.deviceRequestsPerSecond), burst: limits.deviceRequestBurst))
        self.attachments = AttachmentService(
            store: AttachmentStore(database: database), blobs: files.blobs, chunks: files.chunks, settings: settings,
            collections: Set(schema.collections.keys), logger: logger)
        self.listener = PostgresListener(
            configuration: configuration, channels: [AccountStore.changeChannel, SettingsStore.changeChannel], logger: logger
        ) { channel, _ in
            if channel == AccountStore.changeChannel { authenticator.forgetAll() } else { settings.invalidate() }
        }
        self.logger = logger
        listener.start()
    }

    /// Connects the pool and brings the schema up to date.
    static func open(_ app: AppConfiguration, database: PostgresConfiguration, logger: Logger) throws -> Services {
        // An invalid schema stops the start before anything touches the database.
        let schema = try Schema.builtIn()
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
            let files = try AttachmentFiles(dataDirectory: app.dataDirectory, blobDirectory: app.blobDirectory)
            // The HTTP server streams chunk bodies here (Application's temporaryDirectory).
            try FileManager.default.createDirectory(at: app.dataDirectory.appendingPathComponent("tmp"), withIntermediateDirectories: true)
            return try Services(
                database: client, configuration: database, schema: schema, passwords: PasswordHasher(iterations: app.passwordIterations),
                files: files, logger: logger)
        } catch {
            client.shutdown()
            throw error
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
        listener.stop()
        database.shutdown()
    }
}
