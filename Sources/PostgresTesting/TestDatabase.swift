import Foundation
public import Postgres
import Support
import Synchronization

/// Fresh, isolated PostgreSQL databases for tests.
///
/// The first call in a test process starts one throwaway cluster in a temporary directory (removed
/// when the process exits), or uses the server named by `DATABASE_URL` when that is set. Every call
/// then creates a new database `t_<random>`, so suites never see each other's rows and may run in
/// parallel. Failing to reach a server throws with the reason: tests fail, they never skip.
///
/// ```swift
/// @Test("stores a device") func storesDevice() throws {
///     let client = try TestDatabase.client()
///     defer { client.shutdown() }
///     try client.withConnection { try $0.execute("CREATE TABLE devices (id uuid PRIMARY KEY)") }
/// }
/// ```
public enum TestDatabase {
    /// A new, empty database on the shared test server.
    /// - Throws: `PostgresError` explaining why no server could be started or reached.
    public static func configuration() throws -> PostgresConfiguration {
        let server = try TestCluster.shared()
        let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        let connection = try PostgresConnection(configuration: server.configuration, logger: server.logger)
        defer { connection.close() }
        try connection.executeScript("CREATE DATABASE \(name)")
        server.created(database: String(name))
        return server.configuration.with(database: String(name))
    }

    /// A pool on a new database (call `shutdown()` when done).
    /// - Throws: as `configuration()`.
    public static func client(maxConnections: Int = 8) throws -> PostgresClient {
        var options = PostgresClient.Options()
        options.maxConnections = maxConnections
        return PostgresClient(configuration: try configuration(), options: options, logger: TestCluster.makeLogger())
    }
}

/// The one server of a test process, started on first use.
final class TestCluster: Sendable {
    let configuration: PostgresConfiguration
    let logger: Logger
    /// The cluster started here, or nil when `DATABASE_URL` names the server.
    private let cluster: LocalCluster?
    /// Databases created on a `DATABASE_URL` server, dropped at exit.
    private let databases = Mutex<[String]>([])

    private init(configuration: PostgresConfiguration, cluster: LocalCluster?, logger: Logger) {
        self.configuration = configuration
        self.cluster = cluster
        self.logger = logger
    }

    /// Starting is serialised by this lock, and its outcome (including a failure) is kept, so every
    /// test reports the same reason instead of each one trying again.
    private static let instance = Mutex<Result<TestCluster, PostgresError>?>(nil)

    static func shared() throws -> TestCluster {
        try instance.withLock { instance in
            if instance == nil {
                instance = Result { try start() }.mapError { error in
                    error as? PostgresError ?? PostgresError(code: .clusterUnavailable, message: "\(error)")
                }
                atexit { TestCluster.tearDown() }
            }
            return try instance!.get()
        }
    }

    static func makeLogger() -> Logger {
        let level = ProcessInfo.processInfo.environment["FIELDSYNC_TEST_LOG"].flatMap(Logger.Level.init(name:)) ?? .warning
        return Logger(label: "fieldsync.test-database", level: level)
    }

    private static func start() throws -> TestCluster {
        let logger = makeLogger()
        if let url = ProcessInfo.processInfo.environment["DATABASE_URL"], !url.isEmpty {
            return TestCluster(configuration: try PostgresConfiguration(url: url), cluster: nil, logger: logger)
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fieldsync-test-\(UUID().uuidString.prefix(8))")
        // Suites run in parallel, each test server with its own pool and listeners: a full run has
        // been measured near 300 connections at once.
        let cluster = LocalCluster(directory: directory, logger: logger, durable: false, maxConnections: 1000)
        do {
            let configuration = try cluster.start()
            return TestCluster(configuration: configuration.with(database: "postgres"), cluster: cluster, logger: logger)
        } catch {
            try? cluster.stop()
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    func created(database: String) {
        if cluster == nil { databases.withLock { $0.append(database) } }
    }

    /// Stops the throwaway cluster and deletes its directory, or drops the databases created on a
    /// `DATABASE_URL` server.
    private static func tearDown() {
        guard case .success(let server)? = instance.withLock({ $0 }) else { return }
        if let cluster = server.cluster {
            try? cluster.stop()
            try? FileManager.default.removeItem(at: cluster.directory)
            return
        }
        guard let connection = try? PostgresConnection(configuration: server.configuration, logger: server.logger) else { return }
        for database in server.databases.withLock({ $0 }) {
            try? connection.executeScript("DROP DATABASE IF EXISTS \(database) WITH (FORCE)")
        }
        connection.close()
    }
}
