import Dispatch
import Foundation
import Postgres
import PostgresTesting
import Support
import Testing

/// The waits of reads for the writers in flight when they arrive (migration 0016,
/// docs/decisions/0004 "Read-your-writes").
@Suite("Waiting for the writers running now")
struct WriterWaitTests {
    private let logger = Logger(label: "test", level: .warning)

    /// Runs `body` on a fresh database with a transaction holding an id, below the xmax of
    /// snapshots taken after it: a later one commits, so the open one is listed among the
    /// snapshot's running transactions. `body` gets the database, the writer's connection and
    /// its transaction id.
    private func withOpenWriter(_ body: (PostgresClient, PostgresConnection, Int64) throws -> Void) throws {
        let database = try StorageDatabase.migrated()
        defer { database.shutdown() }
        let writer = try PostgresConnection(configuration: database.configuration, logger: logger)
        defer { writer.close() }
        try writer.executeScript("BEGIN")
        let xid = try writer.query("SELECT pg_current_xact_id()::text::bigint")[0].decode(0, as: Int64.self)
        _ = try database.withConnection { try $0.query("SELECT pg_current_xact_id()") }
        try body(database, writer, xid)
    }

    private func horizon(_ database: PostgresClient, waiting timeout: String) throws -> Int64 {
        try database.withConnection {
            try $0.query("SELECT await_change_horizon(\(timeout)::interval)::text::bigint")[0].decode(0, as: Int64.self)
        }
    }

    private func settledSeq(_ database: PostgresClient, waiting timeout: String) throws -> Int64? {
        try database.withConnection {
            try $0.query("SELECT settled_server_seq(\(timeout)::interval)")[0].decode(0, as: Int64?.self)
        }
    }

    @Test("a writer still running when the wait times out holds the horizon at its own id, and nothing counts as settled")
    func timesOut() throws {
        try withOpenWriter { database, writer, xid in
            #expect(try horizon(database, waiting: "50 milliseconds") == xid)
            #expect(try settledSeq(database, waiting: "50 milliseconds") == nil)
            try writer.executeScript("ROLLBACK")
            #expect(try horizon(database, waiting: "50 milliseconds") > xid, "a rolled-back writer is not waited for")
            #expect(try settledSeq(database, waiting: "50 milliseconds") != nil)
        }
    }

    @Test("a wait returns once the writer it waits for commits, with a horizon above that writer")
    func endsWithTheWriter() throws {
        try withOpenWriter { database, writer, xid in
            let answered = DispatchSemaphore(value: 0)
            nonisolated(unsafe) var waited: Result<Int64, any Error>?
            let started = ContinuousClock.now
            DispatchQueue.global().async {
                waited = Result { try horizon(database, waiting: "30 seconds") }
                answered.signal()
            }
            Thread.sleep(forTimeInterval: 0.2)
            #expect(answered.wait(timeout: .now()) == .timedOut, "the wait lasts while the writer runs")
            try writer.executeScript("COMMIT")
            answered.wait()
            #expect(try waited?.get() ?? 0 > xid)
            #expect(ContinuousClock.now - started < .seconds(20), "the wait ended with the writer, not at its timeout")
        }
    }
}
