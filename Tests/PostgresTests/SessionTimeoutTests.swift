import Foundation
import Postgres
import PostgresTesting
import Testing

@Suite("Session timeouts")
struct SessionTimeoutTests {
    private func client(
        _ configuration: PostgresConfiguration? = nil, idleInTransaction: Duration = .milliseconds(400)
    ) throws
        -> PostgresClient
    {
        var options = PostgresClient.Options()
        options.maxConnections = 3
        options.sessionTimeouts.statement = .milliseconds(500)
        options.sessionTimeouts.lock = .milliseconds(200)
        options.sessionTimeouts.idleInTransaction = idleInTransaction
        return PostgresClient(configuration: try configuration ?? TestDatabase.configuration(), options: options, logger: testLogger)
    }

    @Test("every pooled connection carries the statement, lock and idle-transaction limits")
    func settingsOnEveryConnection() throws {
        let pool = try client()
        defer { pool.shutdown() }
        let shown = try pool.withConnection { db in
            try ["statement_timeout", "lock_timeout", "idle_in_transaction_session_timeout"].map { name in
                try db.query("SELECT current_setting(\(name))")[0].decode(0, as: String.self)
            }
        }
        #expect(shown == ["500ms", "200ms", "400ms"])
        let error = #expect(throws: PostgresError.self) { try pool.withConnection { try $0.query("SELECT pg_sleep(5)") } }
        #expect(error?.code == .queryCanceled)
    }

    @Test("a writer waiting for a stuck transaction's lock gives up instead of queueing for ever")
    func lockWait() throws {
        let pool = try client()
        defer { pool.shutdown() }
        // The stuck side never times out on its own, so the writer surely meets its lock.
        let stuckPool = try client(pool.configuration, idleInTransaction: .zero)
        defer { stuckPool.shutdown() }
        try pool.withConnection { try $0.executeScript("CREATE TABLE counter (id int PRIMARY KEY, n int); INSERT INTO counter VALUES (1, 0)") }
        try stuckPool.withConnection { stuck in
            try stuck.executeScript("BEGIN; UPDATE counter SET n = n + 1 WHERE id = 1")
            let blocked = #expect(throws: PostgresError.self) {
                try pool.withConnection { try $0.execute("UPDATE counter SET n = n + 10 WHERE id = 1") }
            }
            #expect(blocked?.code == .lockNotAvailable)
        }
        #expect(try pool.withConnection { try $0.query("SELECT n FROM counter")[0].decode(0, as: Int.self) } == 0)
    }

    @Test("the server ends a transaction left open, which frees the writers behind it")
    func idleTransactionEnded() throws {
        let pool = try client()
        defer { pool.shutdown() }
        try pool.withConnection { try $0.executeScript("CREATE TABLE counter (id int PRIMARY KEY, n int); INSERT INTO counter VALUES (1, 0)") }
        try pool.withConnection { stuck in
            let stuckPID = try backendPID(stuck)
            try stuck.executeScript("BEGIN; UPDATE counter SET n = n + 1 WHERE id = 1")
            let ended = try eventually(timeout: 10) {
                try pool.withConnection { try $0.query("SELECT 1 FROM pg_stat_activity WHERE pid = \(stuckPID)").isEmpty }
            }
            #expect(ended)
            #expect(throws: PostgresError.self) { try stuck.execute("UPDATE counter SET n = n + 100 WHERE id = 1") }
        }
        try pool.withConnection { try $0.execute("UPDATE counter SET n = n + 10 WHERE id = 1") }
        #expect(try pool.withConnection { try $0.query("SELECT n FROM counter")[0].decode(0, as: Int.self) } == 10)
    }
}
