import Cryptography
import Foundation
import Postgres
import Storage
import SyncProtocol
import Support
import SyncAPI
import SyncEngine
import WebUI

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
    public let backOffice: BackOffice
    /// Wakes this process when another one changes accounts or settings.
    private let listener: PostgresListener
    let logger: Logger

    init(
        database: PostgresClient, configuration: PostgresConfiguration, schema: Schema, passwords: PasswordHasher, web: BackOffice.Setup,
        logger: Logger
    ) {
        let accounts = AccountStore(database: database)
        let settings = SettingsStore(database: database)
        let authenticator = Authenticator(accounts: accounts)
        self.database = database
        self.accounts = accounts
        self.settings = settings
        self.secrets = SecretStore(database: database)
        self.passwords = passwords
        let login = LoginService(accounts: accounts, hasher: passwords)
        self.login = login
        self.authenticator = authenticator
        self.schema = schema
        self.backOffice = BackOffice(
            setup: web,
            dependencies: .init(
                accounts: accounts, settings: settings, sessions: WebSessionStore(database: database), dashboard: DashboardStore(database: database),
                login: login, passwords: passwords),
            logger: logger)
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
        let web: BackOffice.Setup
        do {
            let applied = try Migrator(client: client, directory: app.resourcesDirectory.appendingPathComponent("Migrations"), logger: logger)
                .migrate()
            if !applied.isEmpty { logger.info("applied migrations: \(applied.joined(separator: ", "))") }
            web = try BackOffice.Setup(resources: app.resourcesDirectory, secrets: SecretStore(database: client), configuration: app.web)
        } catch {
            client.shutdown()
            throw error
        }
        return Services(
            database: client, configuration: database, schema: schema, passwords: PasswordHasher(iterations: app.passwordIterations), web: web,
            logger: logger)
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
