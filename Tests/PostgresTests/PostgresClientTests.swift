import Foundation
import Postgres
import PostgresTesting
import Testing

@Suite("PostgresClient")
struct PostgresClientTests {
    private func client(max: Int, timeout: Duration) throws -> PostgresClient {
        var options = PostgresClient.Options()
        options.maxConnections = max
        options.acquireTimeout = timeout
        return PostgresClient(configuration: try TestDatabase.configuration(), options: options, logger: testLogger)
    }

    @Test("an exhausted pool makes callers wait, then times out with a clear error")
    func waitsThenTimesOut() throws {
        let pool = try client(max: 1, timeout: .milliseconds(200))
        defer { pool.shutdown() }
        let held = DispatchSemaphore(value: 0)
        let waited = Collected<Bool>()
        Thread {
            try? pool.withConnection { _ in
                held.signal()
                Thread.sleep(forTimeInterval: 0.5)
            }
        }.start()
        held.wait()
        let start = Date()
        let error = #expect(throws: PostgresError.self) { try pool.withConnection { _ in } }
        #expect(error?.code == .poolTimeout)
        #expect(error?.message.contains("no PostgreSQL connection became free") == true)
        #expect(Date().timeIntervalSince(start) >= 0.15)
        // A waiter with a longer deadline gets the connection once the holder returns it.
        let patient = try client(max: 1, timeout: .seconds(3))
        defer { patient.shutdown() }
        onThreads(2) { index in
            waited.append(
                (try? patient.withConnection { db in
                    Thread.sleep(forTimeInterval: index == 0 ? 0.2 : 0)
                    return try db.query("SELECT 1").count == 1
                }) ?? false)
        }
        #expect(waited.all == [true, true])
    }

    @Test("many threads share a small pool without deadlock")
    func contention() throws {
        let pool = try client(max: 2, timeout: .seconds(10))
        defer { pool.shutdown() }
        let backends = Collected<Int>()
        onThreads(8) { _ in
            for _ in 0..<20 {
                if let pid = try? pool.withConnection(backendPID) { backends.append(pid) }
            }
        }
        #expect(backends.all.count == 160)
        #expect(Set(backends.all).count <= 2)
    }

    @Test("a nested lease on an exhausted pool times out instead of hanging")
    func nestedLease() throws {
        let pool = try client(max: 1, timeout: .milliseconds(200))
        defer { pool.shutdown() }
        let error = #expect(throws: PostgresError.self) {
            try pool.withConnection { _ in try pool.withConnection { _ in } }
        }
        #expect(error?.code == .poolTimeout)
        #expect(try pool.withConnection { try $0.query("SELECT 1").count } == 1)
    }

    @Test("a connection whose backend was terminated is replaced")
    func replacesBroken() throws {
        let pool = try client(max: 1, timeout: .seconds(2))
        defer { pool.shutdown() }
        var idle: PostgresConnection?
        let first = try pool.withConnection { connection in
            idle = connection
            return try backendPID(connection)
        }
        let admin = try PostgresConnection(configuration: pool.configuration, logger: testLogger)
        defer { admin.close() }
        try terminateBackend(first, using: admin)
        // The backend leaves pg_stat_activity a moment before its socket closes; wait for the latter.
        #expect(eventually { idle?.isBroken == true })
        let second = try pool.withConnection(backendPID)
        #expect(second != first)
    }

    @Test("a connection returned with an open transaction is rolled back")
    func rollsBackLeftovers() throws {
        let pool = try client(max: 1, timeout: .seconds(2))
        defer { pool.shutdown() }
        try pool.withConnection { try $0.executeScript("CREATE TABLE t (x int)") }
        try pool.withConnection { try $0.executeScript("BEGIN; INSERT INTO t VALUES (1)") }
        #expect(try pool.withConnection { try $0.query("SELECT x FROM t").count } == 0)
        try pool.withTransaction { try $0.execute("INSERT INTO t VALUES (2)") }
        #expect(try pool.withConnection { try $0.query("SELECT x FROM t").count } == 1)
    }

    @Test("a failed open frees its slot and reports the connection error")
    func failedOpen() throws {
        var options = PostgresClient.Options()
        options.maxConnections = 1
        options.acquireTimeout = .seconds(1)
        let configuration = PostgresConfiguration(host: "127.0.0.1", port: 1, user: "nobody", database: "none")
        let pool = PostgresClient(configuration: configuration, options: options, logger: testLogger)
        for _ in 0..<2 {
            let error = #expect(throws: PostgresError.self) { try pool.withConnection { _ in } }
            #expect(error?.code == .connectionFailed)
        }
    }

    @Test("after shutdown, leases fail")
    func shutdown() throws {
        let pool = try client(max: 2, timeout: .seconds(1))
        _ = try pool.withConnection(backendPID)
        pool.shutdown()
        let error = #expect(throws: PostgresError.self) { try pool.withConnection { _ in } }
        #expect(error?.code == .poolClosed)
    }
}
