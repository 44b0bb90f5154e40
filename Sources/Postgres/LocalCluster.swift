public import Foundation
public import Support
import Synchronization

/// A private PostgreSQL cluster kept under a directory: FieldSync's embedded default, and the
/// throwaway server of the test suites.
///
/// Layout: `<directory>/postgres` is the data directory, `<directory>/run` holds the Unix socket and
/// the server log. The first `start()` runs `initdb` (superuser `postgres`, trust authentication,
/// which the cluster accepts only over the socket and 127.0.0.1); every start listens on a free
/// port of 127.0.0.1 and creates the database `fieldsync` if missing. A cluster of the same
/// directory that is already running (a `fieldsync serve` next to a `fieldsync migrate`) is reused,
/// and only the instance that started the server stops it.
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
    private let durable: Bool
    private let logger: Logger
    /// Whether this instance started the server (and so must stop it).
    private let startedHere = Mutex(false)

    /// - Parameters:
    ///   - directory: created if missing; the cluster lives in its `postgres` and `run` subdirectories.
    ///   - durable: false trades crash safety for speed (no fsync, asynchronous commit): for tests only.
    public init(directory: URL, logger: Logger, durable: Bool = true) {
        self.directory = directory
        self.durable = durable
        self.logger = logger
    }

    var dataDirectory: URL { directory.appendingPathComponent("postgres") }
    var runDirectory: URL { directory.appendingPathComponent("run") }

    /// Starts the cluster (initialising it on first use) or attaches to it if it is already running.
    /// - Returns: how to connect to the `fieldsync` database as the superuser.
    /// - Throws: `PostgresError(.clusterUnavailable)` with the reason (missing binaries, failed
    ///   `initdb`, a server that does not start), or the error of creating the database.
    public func start() throws -> PostgresConfiguration {
        let binaries = try PostgresBinaries.locate()
        let account = try ServerAccount.current()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try account.createOwnedDirectory(runDirectory)
        if !FileManager.default.fileExists(atPath: dataDirectory.appendingPathComponent("PG_VERSION").path) {
            try initialize(binaries: binaries, account: account)
        }
        let server = try runningServer() ?? launch(binaries: binaries, account: account)
        try createDatabaseIfMissing(server)
        return server.with(database: Self.databaseName)
    }

    /// Stops the server with `pg_ctl stop -m fast` (open sessions are rolled back), if this instance
    /// started it; a reused server keeps running for its owner.
    /// - Throws: `PostgresError(.clusterUnavailable)` when `pg_ctl` fails.
    public func stop() throws {
        guard startedHere.withLock({ $0 }) else { return }
        let binaries = try PostgresBinaries.locate()
        try ServerAccount.current().run(binaries.tool("pg_ctl"), ["stop", "-D", dataDirectory.path, "-m", "fast", "-w", "-s"])
        startedHere.withLock { $0 = false }
        logger.debug("local postgres stopped", metadata: ["db.directory": directory.path])
    }

    // MARK: - Steps

    private func initialize(binaries: PostgresBinaries, account: ServerAccount) throws {
        logger.debug("initialising local postgres", metadata: ["db.directory": dataDirectory.path])
        try account.createOwnedDirectory(dataDirectory)
        var arguments = ["-D", dataDirectory.path, "-U", "postgres", "--auth=trust", "--encoding=UTF8", "--locale=C"]
        if !durable { arguments.append("--no-sync") }
        try account.run(binaries.tool("initdb"), arguments)
    }

    /// The configuration of a server already running on this data directory, once it accepts connections.
    private func runningServer() throws -> PostgresConfiguration? {
        guard let file = PostmasterFile(dataDirectory: dataDirectory), file.isAlive else { return nil }
        logger.debug("reusing running local postgres", metadata: ["db.pid": "\(file.pid)"])
        let server = PostgresConfiguration(
            host: file.listenAddress ?? "127.0.0.1", port: file.port, user: "postgres", database: "postgres",
            unixSocketDirectory: file.socketDirectory)
        try waitUntilReady(server)
        return server
    }

    /// Starts the server on a free port, retrying if another process takes the port first.
    private func launch(binaries: PostgresBinaries, account: ServerAccount) throws -> PostgresConfiguration {
        var lastError: (any Error)?
        for _ in 0..<3 {
            let port = try freeLoopbackPort()
            do {
                try account.run(binaries.tool("pg_ctl"), pgCtlStartArguments(port: port))
                startedHere.withLock { $0 = true }
                logger.debug("local postgres started", metadata: ["db.port": "\(port)"])
                return PostgresConfiguration(
                    host: "127.0.0.1", port: port, user: "postgres", database: "postgres", unixSocketDirectory: socketDirectory)
            } catch {
                // Another process may have started this same cluster meanwhile: use it.
                if let server = try runningServer() { return server }
                lastError = error
            }
        }
        throw lastError!
    }

    private func pgCtlStartArguments(port: Int) -> [String] {
        // Room for several FieldSync processes (pool, listener, CLI) and, in tests, many servers at once.
        var settings = [
            "-p", String(port), "-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=\(socketDirectory ?? "")",
            "-c", "max_connections=300",
        ]
        if !durable {
            settings += ["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"]
        }
        // pg_ctl hands -o to /bin/sh, so every word is single-quoted.
        let options = settings.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        let log = runDirectory.appendingPathComponent("server.log").path
        return ["start", "-D", dataDirectory.path, "-l", log, "-w", "-t", "60", "-s", "-o", options]
    }

    /// The run directory, unless its socket path would exceed the kernel's limit (~107 bytes); then
    /// the server listens on TCP only.
    private var socketDirectory: String? {
        let path = runDirectory.path
        return path.utf8.count + "/.s.PGSQL.65535".utf8.count < 104 ? path : nil
    }

    private func waitUntilReady(_ server: PostgresConfiguration) throws {
        let deadline = Date().addingTimeInterval(30)
        while true {
            do {
                try PostgresConnection(configuration: server, logger: logger).close()
                return
            } catch let error as PostgresError where Date() < deadline {
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
