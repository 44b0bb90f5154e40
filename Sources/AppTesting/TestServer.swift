public import App
import Cryptography
public import Foundation
public import Postgres
import PostgresTesting
import Storage
public import Support
public import SyncEngine
public import SyncProtocol
import Synchronization

/// A real FieldSync `Application` on 127.0.0.1 and a free port, on a fresh database.
///
/// Each start gets its own database from `TestDatabase` (or reuses the one passed in, to
/// test restarts), a temporary data folder removed by `stop()`, the first admin's
/// password `TestServer.adminPassword`, and a low PBKDF2 work factor so logins are fast.
///
/// ```swift
/// let server = try await TestServer.start()
/// defer { server.stop() }
/// let (user, password) = try server.makeUser(role: .field, team: "north")
/// let token = try await server.login(username: user.username, password: password)
/// let response = try await server.client.get("/v1/config", token: token)
/// ```
public final class TestServer: Sendable {
    /// The password of the `admin` account created on a fresh database.
    public static let adminPassword = "admin-password-for-tests"
    /// The PBKDF2 work factor test servers use.
    public static let passwordIterations = 1000

    public let application: Application
    /// `http://127.0.0.1:<port>/`.
    public let baseURL: URL
    /// The database the server runs on.
    public let database: PostgresConfiguration
    public let dataDirectory: URL
    /// Where the server spools large request bodies (`AppConfiguration.spoolDirectory`).
    public let spoolDirectory: URL
    /// A client for this server (no redirects followed, no cookies kept).
    public let client: TestClient
    private let isStopped = Atomic<Bool>(false)

    public var core: Core { application.core }

    /// `database` as a `DATABASE_URL`, e.g. for `fieldsync` subprocesses.
    public var databaseURL: String { DatabaseURL.string(for: database) }

    private init(application: Application, database: PostgresConfiguration, dataDirectory: URL, spoolDirectory: URL) {
        self.application = application
        self.database = database
        self.dataDirectory = dataDirectory
        self.spoolDirectory = spoolDirectory
        baseURL = URL(string: "http://127.0.0.1:\(application.port)/")!
        client = TestClient(baseURL: baseURL)
    }

    deinit {
        stop()
    }

    /// Starts the application.
    /// - Parameters:
    ///   - database: the database to use; nil for a new, empty one.
    ///   - logger: the server's logger; by default warnings and errors to standard error
    ///     (`FIELDSYNC_TEST_LOG=info` shows the access log).
    ///   - configure: adjusts the configuration before the start.
    /// - Throws: when no database can be created or the application fails to start.
    public static func start(
        database: PostgresConfiguration? = nil, logger: Logger? = nil, configure: (inout AppConfiguration) -> Void = { _ in }
    ) async throws -> TestServer {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fieldsync-app-\(UUID().uuidString.prefix(8))")
        // The first database of a test process also starts the test cluster (seconds).
        let (database, base) = try await onDedicatedThread {
            let database = try database ?? TestDatabase.configuration()
            return (database, try baseConfiguration(database: database, dataDirectory: directory))
        }
        var configuration = base
        configure(&configuration)
        let chosen = configuration
        let logger = logger ?? makeLogger()
        do {
            let application = try await onDedicatedThread { try Application.start(chosen, logger: logger) }
            return TestServer(application: application, database: database, dataDirectory: directory, spoolDirectory: chosen.spoolDirectory)
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    /// Shuts the application down gracefully and removes the data folder; the database
    /// stays (so a new server can start on it) until the test process ends. Blocks briefly
    /// (about 0.1 s while the notification listener stops) so that it can run in `defer`.
    public func stop(timeout: Duration = .seconds(10)) {
        guard !isStopped.exchange(true, ordering: .relaxed) else { return }
        application.shutdown(timeout: timeout)
        try? FileManager.default.removeItem(at: dataDirectory)
    }

    // MARK: - Accounts

    /// Creates a user with a random name and password, directly in the store.
    /// - Parameters:
    ///   - role: the user's role.
    ///   - team: the user's team (created when missing), or nil.
    /// - Returns: the account and its password.
    public func makeUser(role: Role = .field, team: String? = "team-1") throws -> (user: UserAccount, password: String) {
        let password = "pw-" + UUID().uuidString
        let user = try core.accounts.createUser(
            username: "\(role.rawValue)-\(UUID().uuidString.prefix(8).lowercased())", role: role, teamId: team,
            passwordHash: try core.passwords.hash(password))
        return (user, password)
    }

    /// Logs a device in through `POST /v1/auth/token`, on a fresh device id unless one is given
    /// (a device id belongs to the first user who signs in with it).
    /// - Returns: the bearer token.
    /// - Throws: `TestServerError` with the response when the answer is not 200.
    public func login(username: String, password: String, deviceId: String? = nil) async throws -> String {
        let deviceId = deviceId ?? "device-" + UUID().uuidString.prefix(8).lowercased()
        let response = try await client.post(
            "/v1/auth/token",
            json: TokenRequest(username: username, password: password, deviceId: deviceId, platform: "test", appVersion: "2.3.0"))
        guard response.status == 200 else { throw TestServerError("login of \(username) failed: \(response)") }
        return try response.decode(TokenResponse.self).token
    }

    /// A new user of `role`, logged in (on a fresh device id unless one is given): its account and bearer token.
    public func makeDevice(
        role: Role = .field, team: String? = "team-1", deviceId: String? = nil
    ) async throws
        -> (user: UserAccount, token: String)
    {
        let (user, password) = try makeUser(role: role, team: team)
        return (user, try await login(username: user.username, password: password, deviceId: deviceId))
    }

    // MARK: - Setup

    private static func baseConfiguration(database: PostgresConfiguration, dataDirectory: URL) throws -> AppConfiguration {
        var configuration = AppConfiguration(resourcesDirectory: try TestResources.directory())
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.dataDirectory = dataDirectory
        configuration.database = database
        // Small: many test servers share one PostgreSQL and its connection limit.
        configuration.databasePoolSize = 4
        configuration.workerThreads = 8
        configuration.adminPassword = adminPassword
        configuration.passwordIterations = passwordIterations
        return configuration
    }

    private static func makeLogger() -> Logger {
        let level = ProcessInfo.processInfo.environment["FIELDSYNC_TEST_LOG"].flatMap(Logger.Level.init(name:)) ?? .warning
        return Logger(label: "fieldsync.test-server", level: level)
    }
}

/// A test-server helper failed; the message includes the HTTP answer.
public struct TestServerError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// The FieldSync checkout's `Migrations/`, `Templates/` and `Public/`.
enum TestResources {
    /// Found as `fieldsync` finds it: `FIELDSYNC_RESOURCES`, else the working directory or
    /// an ancestor of the test executable.
    static func directory() throws -> URL {
        var variables: [String: String] = [:]
        variables["FIELDSYNC_RESOURCES"] = ProcessInfo.processInfo.environment["FIELDSYNC_RESOURCES"]
        let arguments = try CommandLineArguments([], valueOptions: [])
        return try AppConfiguration.load(arguments: arguments, environment: Environment(variables)).resourcesDirectory
    }
}
