import Dispatch
import Foundation
import Postgres
import PostgresTesting
import Storage
import Support
import SyncEngine
import SyncProtocol
import Testing

@Suite("The sequence counter lock")
struct SequenceCounterTests {
    private func event(_ name: String) -> PendingEvent {
        PendingEvent(type: .recordChanged, data: ["recordId": .string(name)], audience: [])
    }

    /// What the backend running `sql` waits for: the `pg_locks` lock type, or nil while it is not waiting.
    private func waitingLock(on database: PostgresClient, runningLike sql: String) throws -> String? {
        try database.withConnection { connection in
            try connection.query(
                """
                SELECT l.locktype FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
                WHERE NOT l.granted AND a.query LIKE \(sql)
                """
            ).first?.decode(0, as: String.self)
        }
    }

    @Test("writers queue for it on an advisory lock, which PostgreSQL grants in arrival order, and ids follow commit order")
    func queuesInArrivalOrder() throws {
        let database = try StorageDatabase.migrated()
        let holder = try PostgresConnection(configuration: database.configuration, logger: Logger(label: "test", level: .warning))
        defer { holder.close() }
        try holder.executeScript("BEGIN")
        try EventOutbox.append([event("first")], on: holder)

        let finished = DispatchSemaphore(value: 0)
        let waiter = Thread {
            try? database.withTransaction { try EventOutbox.append([self.event("second")], on: $0) }
            finished.signal()
        }
        waiter.start()
        var waitedOn: String?
        for _ in 0..<250 where waitedOn == nil {
            Thread.sleep(forTimeInterval: 0.02)
            waitedOn = try waitingLock(on: database, runningLike: "%pg_advisory_xact_lock%")
        }
        #expect(waitedOn == "advisory")
        try holder.executeScript("COMMIT")
        finished.wait()

        let order = try database.withConnection { connection in
            try connection.query("SELECT data->>'recordId' FROM events ORDER BY id").map { try $0.decode(0, as: String.self) }
        }
        #expect(order == ["first", "second"])
    }
}
