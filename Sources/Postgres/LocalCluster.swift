public import Foundation
public import Support
import Synchronization

/// A private PostgreSQL cluster kept under a directory: FieldSync's embedded default, and the
/// throwaway server of the test suites.
///
/// Layout: `<directory>/postgres` is the data directory, `<directory>/run` holds the Unix socket and
/// the server log, `<directory>/postgres.password` the superuser's password. The first `start()`
/// runs `initdb` (superuser `postgres`, SCRAM password authentication only, over the socket and
/// 127.0.0.1; see `LocalCluster+Authentication`); every start listens on 127.0.0.1,
/// on a free port or the one asked for, and creates the database `fieldsync` if missing. A cluster of the same
/// directory that is already running (a `fieldsync serve` next to a `fieldsync migrate`) is reused,
/// and only the instance that started the server stops it, or the one that adopted it (`serve`
/// adopts a server whose owner was killed). What a killed server leaves behind (its pid file, its
/// backends finishing their last query) delays a start, it does not fail it.
///
/// ```swift
/// let cluster = LocalCluster(directory: dataDirectory, logger: logger)
/// let configuration = try cluster.start()
/// defer { try? cluster.stop() }
/// ```
public final class LocalCluster: Sendable {
    /// The database `start()` creates and returns.
    public static let databaseName = "fieldsync"

    public let directory: URL
    let durable: Bool
    /// PostgreSQL's `max_connections`.
    let maxConnections: Int
    /// Further server settings (`name=value`) each start passes.
    let settings: [String]
    let logger: Logger
    /// How long a start waits for what a killed server left to clear (see `launch`).
    let launchPatience: Duration
    /// Whether this instance started or adopted the server (and so must stop it).
    let startedHere = Mutex(false)

    /// - Parameters:
    ///   - directory: created if missing; the cluster lives in its `postgres` and `run` subdirectories.
    ///   - durable: false trades crash safety for speed (no fsync, asynchronous commit): for tests only.
    ///   - maxConnections: room for several FieldSync processes (pool, listener, CLI); a test run,
    ///     with many servers at once, needs more.
    ///   - launchPatience: how long `start()` keeps trying while the backends of a killed server
    ///     still hold its shared memory or its port.
    ///   - settings: further server settings (`name=value`), such as a library to preload; they
    ///     apply to a server this instance starts, not to one found running.
    public init(
        directory: URL, logger: Logger, durable: Bool = true, maxConnections: Int = 300, launchPatience: Duration = .seconds(60),
        settings: [String] = []
    ) {
        self.directory = directory
        self.durable = durable
        self.maxConnections = maxConnections
        self.settings = settings
        self.logger = logger
        self.launchPatience = launchPatience
    }

    var dataDirectory: URL { directory.appendingPathComponent("postgres") }
    var runDirectory: URL { directory.appendingPathComponent("run") }

    /// Whether a PostgreSQL server is running on this cluster's data directory (whoever started it).
    public var isRunning: Bool {
        PostmasterFile(dataDirectory: dataDirectory)?.isAlive ?? false
    }

    /// Starts the cluster (initialising it on first use) or attaches to it if it is already running.
    /// - Parameters:
    ///   - adopt: a server found running becomes this instance's to stop, as if it had started it
    ///     (for the long-lived owner, whose predecessor may have been killed without stopping it).
    ///   - port: the port to start the server on (the one clients already use); a free one if nil.
    /// - Returns: how to connect to the `fieldsync` database as the superuser.
    /// - Throws: `PostgresError(.clusterUnavailable)` with the reason (missing binaries, failed
    ///   `initdb`, a server that does not start, with the server log's words), or the error of
    ///   creating the database.
    public func start(adoptingRunningServer adopt: Bool = false, port: Int? = nil) throws -> PostgresConfiguration {
        let binaries = try PostgresBinaries.locate()
        let account = try ServerAccount.current()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try account.createOwnedDirectory(runDirectory)
        let password = try superuserPassword()
        if !FileManager.default.fileExists(atPath: dataDirectory.appendingPathComponent("PG_VERSION").path) {
            try initialize(binaries: binaries, account: account, password: password)
        }
        var server: PostgresConfiguration
        if let running = try runningServer() {
            if adopt { startedHere.withLock { $0 = true } }
            server = running
        } else {
            server = try launch(binaries: binaries, account: account, port: port)
        }
        server.password = password
        if trustsLocalProcesses { try convertToPasswordAuthentication(server, password: password) }
        try createDatabaseIfMissing(server)
        return server.with(database: Self.databaseName)
    }

    /// Stops the server with `pg_ctl stop -m fast` (open sessions are rolled back), if this instance
    /// started or adopted it; a reused server keeps running for its owner.
    /// - Throws: `PostgresError(.clusterUnavailable)` when `pg_ctl` fails.
    public func stop() throws {
        guard startedHere.withLock({ $0 }) else { return }
        guard isRunning else {
            startedHere.withLock { $0 = false }  // killed meanwhile: nothing left to stop
            return
        }
        let binaries = try PostgresBinaries.locate()
        try ServerAccount.current().run(binaries.tool("pg_ctl"), ["stop", "-D", dataDirectory.path, "-m", "fast", "-w", "-s"])
        startedHere.withLock { $0 = false }
        logger.debug("local postgres stopped", metadata: ["db.directory": directory.path])
    }

    // MARK: - Steps

    private func initialize(binaries: PostgresBinaries, account: ServerAccount, password: String) throws {
        logger.debug("initialising local postgres", metadata: ["db.directory": dataDirectory.path])
        try account.createOwnedDirectory(dataDirectory)
        try withInitdbPasswordFile(password, account: account) { passwordFile in
            var arguments = [
                "-D", dataDirectory.path, "-U", "postgres", "--auth=scram-sha-256", "--pwfile=\(passwordFile.path)", "--encoding=UTF8",
                "--locale=C",
            ]
            if !durable { arguments.append("--no-sync") }
            try account.run(binaries.tool("initdb"), arguments)
        }
    }

    /// The configuration of a server already running on this data directory, once it accepts
    /// connections; nil when there is none, or when it dies while being waited for (a server
    /// killed a moment ago still looks alive until its process has exited).
    func runningServer() throws -> PostgresConfiguration? {
        guard let file = PostmasterFile(dataDirectory: dataDirectory), file.isAlive else { return nil }
        logger.debug("reusing running local postgres", metadata: ["db.pid": "\(file.pid)"])
        let server = PostgresConfiguration(
            host: file.listenAddress ?? "127.0.0.1", port: file.port, user: "postgres", password: try superuserPassword(),
            database: "postgres", unixSocketDirectory: file.socketDirectory)
        let deadline = Date().addingTimeInterval(30)
        while true {
            do {
                try PostgresConnection(configuration: server, logger: logger).close()
                return server
            } catch let error as PostgresError where Date() < deadline {
                guard file.isAlive else { return nil }
                logger.trace("waiting for local postgres", metadata: ["db.error": error.message])
                Thread.sleep(forTimeInterval: 0.1)
            }
        }
    }

    private func createDatabaseIfMissing(_ server: PostgresConfiguration) throws {
        let connection = try PostgresConnection(configuration: server, logger: logger)
        defer { connection.close() }
        guard try connection.query("SELECT 1 FROM pg_database WHERE datname = \(Self.databaseName)").isEmpty else { return }
        do {
            try connection.executeScript("CREATE DATABASE \(Self.databaseName)")
        } catch let error as PostgresError where error.code == .duplicateDatabase || error.code == .uniqueViolation {
            // Created by a concurrent start of the same cluster.
        }
    }
}
