import AppTesting
import Foundation
import Postgres
import PostgresTesting
import Support
import SyncProtocol
import Testing

/// Pull cursors across a crash of PostgreSQL (docs/decisions/0004, "Crashes"): a transaction id
/// that nothing durable used is issued again after crash recovery, so a cursor may hold a horizon
/// above such ids only once a later transaction has committed durably.
@Suite("Pull cursors across a PostgreSQL crash")
struct SyncCrashTests {
    @Test("A caught-up cursor handed out just before PostgreSQL is killed still reaches a record created after the restart")
    func caughtUpCursor() async throws {
        let rig = try await CrashRig.start()
        defer { rig.stop() }
        let synced = try await rig.ana.drain()
        #expect(synced.changes.map(\.recordId) == ["job-1", "job-2"])

        let caughtUp = try await rig.crash { try await $0.drain(from: synced.cursor).cursor }
        _ = try await rig.bo.applied(rig.bo.create("jobs", "job-3", ["title": "t"]))

        #expect(try await rig.ana.drain(from: caughtUp).changes.map(\.recordId) == ["job-3"])
    }

    @Test("An initial sync's first page, served just before PostgreSQL is killed, still brings the delete of a record it sent")
    func initialSyncStart() async throws {
        let rig = try await CrashRig.start()
        defer { rig.stop() }

        var sent: [Change] = []
        let cursor = try await rig.crash { ana in
            let first = try await ana.pull(limit: 1)
            sent = first.changes
            return first.nextCursor
        }
        let job = try #require(sent.first)
        _ = try await rig.bo.applied(rig.bo.delete("jobs", job.recordId, base: job.serverSeq))

        var replica = Replica(sent)
        replica.apply(try await rig.ana.drain(from: cursor).changes)
        #expect(replica.records.count == 1 && replica.records[Replica.key("jobs", job.recordId)] == nil)
    }
}

/// A durable cluster of its own under a test server, with two field devices of one team; `bo`
/// has created `job-1` and `job-2`.
private struct CrashRig {
    let cluster: LocalCluster
    let database: PostgresConfiguration
    let server: TestServer
    let ana: SyncDevice
    let bo: SyncDevice

    static func start() async throws -> CrashRig {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("crash-\(UUID().uuidString.prefix(8))")
        let cluster = LocalCluster(directory: directory, logger: Logger(label: "test", level: .warning))
        do {
            let database = try await onDedicatedThread { try cluster.start() }
            // The WAL writer flushes asynchronous commits every 10 s instead of every 200 ms, so
            // the kill in `crash` is sure to land in the window a busy server leaves by chance.
            try execute(["ALTER SYSTEM SET wal_writer_delay = '10s'", "SELECT pg_reload_conf()"], on: database)
            let server = try await TestServer.start(database: database)
            let (ana, bo) = (try await server.device(), try await server.device())
            _ = try await bo.push([bo.create("jobs", "job-1", ["title": "t"]), bo.create("jobs", "job-2", ["title": "t"])])
            return CrashRig(cluster: cluster, database: database, server: server, ana: ana, bo: bo)
        } catch {
            Self.remove(cluster)
            throw error
        }
    }

    /// Ends transactions without waiting for the WAL flush (as asynchronous commits and rollbacks
    /// do: a pull's bookkeeping, a push cut off), runs `pull` (so its horizon lies above them),
    /// kills PostgreSQL at once, starts it again and waits until the server reads again.
    /// - Returns: the cursor `pull` returned.
    func crash(after pull: (SyncDevice) async throws -> String?) async throws -> String {
        try Self.execute(["SET synchronous_commit TO off"] + Array(repeating: "SELECT pg_current_xact_id()", count: 200), on: database)
        let cursor = try #require(try await pull(ana))
        let (cluster, port) = (cluster, database.port)
        try await onDedicatedThread {
            try Self.killPostmaster(of: cluster)
            _ = try cluster.start(adoptingRunningServer: true, port: port)
        }
        // The server's pool finds its connections gone and opens new ones.
        var reading = false
        for _ in 0..<100 where !reading {
            reading = (try? await bo.pull()) != nil
            if !reading { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(reading)
        return cursor
    }

    func stop() {
        server.stop()
        Self.remove(cluster)
    }

    /// Runs each statement in a transaction of its own on a new connection.
    static func execute(_ statements: [PostgresQuery], on database: PostgresConfiguration) throws {
        let connection = try PostgresConnection(configuration: database, logger: Logger(label: "test", level: .warning))
        defer { connection.close() }
        for statement in statements { _ = try connection.query(statement) }
    }

    /// SIGKILL to the postmaster, as the OOM killer would send, and waits until it is gone.
    static func killPostmaster(of cluster: LocalCluster) throws {
        let text = try String(contentsOf: cluster.directory.appendingPathComponent("postgres/postmaster.pid"), encoding: .utf8)
        let pid = try #require(text.split(separator: "\n").first.flatMap { pid_t($0) })
        kill(pid, SIGKILL)
        while cluster.isRunning { usleep(10_000) }
    }

    /// Stops the cluster and deletes its folder.
    static func remove(_ cluster: LocalCluster) {
        if cluster.isRunning {
            _ = try? cluster.start(adoptingRunningServer: true)
            try? cluster.stop()
        }
        try? FileManager.default.removeItem(at: cluster.directory)
    }
}
