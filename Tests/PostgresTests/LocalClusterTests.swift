import Dispatch
import Foundation
import PostgresTesting
import Testing

@testable import Postgres

@Suite("LocalCluster")
struct LocalClusterTests {
    @Test("initialises, starts, is reused by a second instance, stops and restarts")
    func lifecycle() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cluster-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: directory) }
        let owner = LocalCluster(directory: directory, logger: testLogger, durable: false, settings: ["cluster_name=field's test"])
        let configuration = try owner.start()
        defer { try? owner.stop() }
        #expect(configuration.database == "fieldsync")
        #expect(configuration.host == "127.0.0.1")
        let connection = try PostgresConnection(configuration: configuration, logger: testLogger)
        #expect(try connection.query("SHOW cluster_name")[0].decode(0, as: String.self) == "field's test", "extra settings reach the server")
        connection.close()
        var overTCP = configuration
        overTCP.unixSocketDirectory = nil
        try PostgresConnection(configuration: overTCP, logger: testLogger).close()

        let second = LocalCluster(directory: directory, logger: testLogger)
        let reused = try second.start()
        #expect(reused.port == configuration.port)
        try second.stop()
        try PostgresConnection(configuration: configuration, logger: testLogger).close()

        try owner.stop()
        #expect(throws: PostgresError.self) { try PostgresConnection(configuration: configuration, logger: testLogger) }
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("postgres/postmaster.pid").path))

        let restarted = try owner.start()
        try PostgresConnection(configuration: restarted, logger: testLogger).close()
    }
}

@Suite("PostgresBinaries")
struct PostgresBinariesTests {
    @Test("finds the server programs on this machine")
    func findsInstalledServer() throws {
        let binaries = try PostgresBinaries.locate()
        #expect(FileManager.default.isExecutableFile(atPath: binaries.tool("initdb").path))
    }

    @Test("names the package to install when the programs are missing")
    func namesPackage() {
        let error = #expect(throws: PostgresError.self) { try PostgresBinaries.locate(in: ["/nonexistent/bin"]) }
        #expect(error?.code == .clusterUnavailable)
        #expect(error?.message.contains("\"postgresql\"") == true)
    }
}

/// What a crash leaves for the next start: a killed postmaster, its pid file, and its backends.
@Suite("LocalCluster after a crash")
struct LocalClusterCrashTests {
    @Test("starts again after its postmaster was killed while one of its backends still ran a query")
    func restartsAfterKilledPostmaster() async throws {
        let kept = try await withClusterDirectory { directory in
            let configuration = try LocalCluster(directory: directory, logger: testLogger, durable: false).start()
            try PostgresConnection(configuration: configuration, logger: testLogger).executeScript(
                "SET synchronous_commit = on; CREATE TABLE kept (n int); INSERT INTO kept VALUES (7)")
            // A backend busy with a long query outlives its postmaster and keeps the shared memory
            // attached; the next server must wait for it instead of sharing the data directory.
            let busy = UnsafeTransfer(try PostgresConnection(configuration: configuration, logger: testLogger))
            let finished = DispatchSemaphore(value: 0)
            Thread {
                _ = try? busy.value.query("SELECT count(*) FROM generate_series(1, 30000000)")
                finished.signal()
            }.start()
            Thread.sleep(forTimeInterval: 0.5)
            try killPostmaster(of: directory)

            let restarted = try LocalCluster(directory: directory, logger: testLogger, durable: false).start()
            let rows = try PostgresConnection(configuration: restarted, logger: testLogger).query("SELECT n FROM kept")
            finished.wait()
            return try rows.map { try $0.decode(0, as: Int.self) }
        }
        #expect(kept == [7])
    }

    @Test("ignores a postmaster.pid whose process id now belongs to another program")
    func ignoresReusedPid() async throws {
        try await withClusterDirectory { directory in
            let cluster = LocalCluster(directory: directory, logger: testLogger, durable: false)
            _ = try cluster.start()
            let pidFile = directory.appendingPathComponent("postgres/postmaster.pid")
            let lines = try String(contentsOf: pidFile, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            try cluster.stop()
            // After a reboot or a container restart the dead server's pid may name any process: this one.
            let reused = [String(getpid())] + lines.dropFirst().map(String.init)
            try reused.joined(separator: "\n").write(to: pidFile, atomically: false, encoding: .utf8)

            let restarted = try LocalCluster(directory: directory, logger: testLogger, durable: false).start()
            try PostgresConnection(configuration: restarted, logger: testLogger).close()
        }
    }

    @Test("a server left running by an owner that died is stopped by the instance that adopts it")
    func adoptsOrphanedServer() async throws {
        let (running, pidFileLeft) = try await withClusterDirectory { directory in
            // Its owner is killed before it can stop the server: the instance is simply dropped.
            _ = try LocalCluster(directory: directory, logger: testLogger, durable: false).start()
            let adopter = LocalCluster(directory: directory, logger: testLogger, durable: false)
            _ = try adopter.start(adoptingRunningServer: true)
            try adopter.stop()
            return (adopter.isRunning, FileManager.default.fileExists(atPath: directory.appendingPathComponent("postgres/postmaster.pid").path))
        }
        #expect(!running)
        #expect(!pidFileLeft)
    }
}

/// Runs `body` with a fresh cluster folder (short enough for the Unix socket path) on a thread of
/// its own, since starting and killing servers blocks for seconds; then stops whatever server
/// still runs there and deletes the folder.
func withClusterDirectory<T: Sendable>(_ body: @escaping @Sendable (URL) throws -> T) async throws -> T {
    try await onDedicatedThread {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cluster-\(UUID().uuidString.prefix(8))")
        defer {
            let cluster = LocalCluster(directory: directory, logger: testLogger)
            if cluster.isRunning {
                _ = try? cluster.start(adoptingRunningServer: true)
                try? cluster.stop()
            }
            try? FileManager.default.removeItem(at: directory)
        }
        return try body(directory)
    }
}

/// SIGKILL to the postmaster, as the OOM killer or an operator's `kill -9` would send; returns its pid.
@discardableResult
func killPostmaster(of directory: URL) throws -> pid_t {
    guard let file = PostmasterFile(dataDirectory: directory.appendingPathComponent("postgres")), file.isAlive else {
        throw PostgresError(code: .clusterUnavailable, message: "no running postmaster in \(directory.path)")
    }
    kill(file.pid, SIGKILL)
    return file.pid
}
