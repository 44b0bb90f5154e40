import Foundation
import SQLite
import Synchronization
import Testing

@Suite("SQLite wrapper")
struct SQLiteDatabaseTests {
    @Test("Values of every type round-trip through binds and rows")
    func roundTrip() throws {
        let queue = try DatabaseQueue(path: ":memory:")
        let row = try #require(
            try queue.write { db in
                try db.execute("CREATE TABLE t (i INTEGER, r REAL, s TEXT, b BLOB, n TEXT)")
                try db.execute("INSERT INTO t VALUES (?, ?, ?, ?, ?)", [Int64(-42), 2.5, "héllo \"x\" ✓", Data([0, 255, 7]), nil])
                return try db.row("SELECT * FROM t")
            })
        #expect(row["i"] == .integer(-42) && row["r"] == .real(2.5) && row["s"] == .text("héllo \"x\" ✓"))
        #expect(row["b"] == .blob(Data([0, 255, 7])) && row["n"] == .null)
        #expect(try row.decode("i", as: Int.self) == -42 && row.decode("n", as: String?.self) == nil)
        #expect(throws: SQLiteError.self) { try row.decode("s", as: Int.self) }
    }

    @Test("A throwing write rolls back; a returning one commits")
    func transactions() throws {
        let queue = try DatabaseQueue(path: ":memory:")
        try queue.write { db in try db.execute("CREATE TABLE t (v INTEGER PRIMARY KEY)") }
        struct Abort: Error {}
        #expect(throws: Abort.self) {
            try queue.write { db in
                try db.execute("INSERT INTO t VALUES (1)")
                throw Abort()
            }
        }
        try queue.write { db in try db.execute("INSERT INTO t VALUES (2)") }
        #expect(try queue.read { db in try db.rows("SELECT v FROM t").map { $0["v"] } } == [.integer(2)])
    }

    @Test("Errors carry the result code, message and SQL")
    func errors() throws {
        let queue = try DatabaseQueue(path: ":memory:")
        try queue.write { db in
            try db.execute("CREATE TABLE t (v INTEGER PRIMARY KEY)")
            try db.execute("INSERT INTO t VALUES (1)")
        }
        do {
            try queue.write { db in try db.execute("INSERT INTO t VALUES (?)", [1]) }
            Issue.record("a duplicate key must fail")
        } catch let error as SQLiteError {
            #expect(error.code.primary == .constraint && error.sql == "INSERT INTO t VALUES (?)")
        }
        #expect(throws: SQLiteError.self) { try queue.read { db in try db.rows("SELEC nonsense") } }
        #expect(throws: SQLiteError.self) { try queue.write { db in try db.execute("INSERT INTO t VALUES (?)", []) } }
    }

    @Test("A file database keeps committed rows across connections, in WAL mode with full synchronous commits")
    func durableFile() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sqlite-\(UUID().uuidString).db").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        do {
            let queue = try DatabaseQueue(path: path)
            try queue.write { db in
                try db.execute("CREATE TABLE op_log (op_id TEXT PRIMARY KEY)")
                try db.execute("INSERT INTO op_log VALUES ('op-1')")
            }
            try queue.close()
        }
        let reopened = try DatabaseQueue(path: path)
        let (count, mode, synchronous) = try reopened.writeWithoutTransaction { db in
            (
                try db.rows("SELECT op_id FROM op_log").count, try db.row("PRAGMA journal_mode")?["journal_mode"],
                try db.value(Int.self, "PRAGMA synchronous")
            )
        }
        // synchronous 2 is FULL: a commit is on disk before it returns.
        #expect(count == 1 && mode == .text("wal") && synchronous == 2)
    }

    @Test("A read refuses writes")
    func readOnly() throws {
        let queue = try DatabaseQueue(path: ":memory:")
        try queue.write { db in try db.execute("CREATE TABLE t (v INTEGER)") }
        #expect(throws: SQLiteError.self) { try queue.read { db in try db.execute("INSERT INTO t VALUES (1)") } }
        try queue.write { db in try db.execute("INSERT INTO t VALUES (1)") }
        #expect(try queue.read { db in try db.value(Int.self, "SELECT count(*) FROM t") } == 1)
    }

    @Test("Statements are prepared once per SQL text and reused")
    func statementCache() throws {
        let queue = try DatabaseQueue(path: ":memory:")
        let (reused, values, null) = try queue.write { db in
            try db.execute("CREATE TABLE t (v INTEGER)")
            let first = try db.cachedStatement("INSERT INTO t VALUES (?)")
            for value in 1...3 { try db.execute("INSERT INTO t VALUES (?)", [value]) }
            return (
                try db.cachedStatement("INSERT INTO t VALUES (?)") === first, try db.values(Int64.self, "SELECT v FROM t ORDER BY v"),
                try db.value(String.self, "SELECT NULL")
            )
        }
        #expect(reused && values == [1, 2, 3] && null == nil)
    }

    @Test("Async reads and writes run on the queue one at a time")
    func asyncAccess() async throws {
        let queue = try DatabaseQueue(path: ":memory:")
        try await queue.write { db in try db.execute("CREATE TABLE counter (n INTEGER NOT NULL)") }
        try await queue.write { db in try db.execute("INSERT INTO counter VALUES (0)") }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    try await queue.write { db in
                        let n = try db.value(Int.self, "SELECT n FROM counter") ?? 0
                        try db.execute("UPDATE counter SET n = ?", [n + 1])
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await queue.read { db in try db.value(Int.self, "SELECT n FROM counter") } == 50)
    }

    @Test("Cancelling a task interrupts its long statement and rolls its transaction back")
    func cancellation() async throws {
        let queue = try DatabaseQueue(path: ":memory:")
        try await queue.write { db in try db.execute("CREATE TABLE t (v INTEGER)") }
        let started = Flag()
        let task = Task {
            try await queue.write { db in
                try db.execute("INSERT INTO t VALUES (1)")
                started.set()
                // Counts to 200 million: seconds of work that only an interrupt stops.
                _ = try db.value(
                    Int.self, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 200000000) SELECT count(*) FROM c")
            }
        }
        while !started.isSet { try await Task.sleep(for: .milliseconds(5)) }
        task.cancel()
        let result = await task.result
        #expect(throws: SQLiteError.self) { try result.get() }
        #expect(try await queue.read { db in try db.value(Int.self, "SELECT count(*) FROM t") } == 0)
    }

    @Test("A task cancelled before its turn on the queue does not run at all")
    func cancelledBeforeItsTurn() async throws {
        let queue = try DatabaseQueue(path: ":memory:")
        try await queue.write { db in try db.execute("CREATE TABLE t (v INTEGER)") }
        let task = Task {
            try await Task.sleep(for: .seconds(60))
            return try await queue.write { db in try db.execute("INSERT INTO t VALUES (1)") }
        }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        let cancelledWrite = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await queue.write { db in try db.execute("INSERT INTO t VALUES (2)") }
        }
        await #expect(throws: CancellationError.self) { try await cancelledWrite.value }
        #expect(try await queue.read { db in try db.value(Int.self, "SELECT count(*) FROM t") } == 0)
    }

    @Test("Migrations run once each, in order, and a database from a newer version is refused")
    func migrations() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sqlite-\(UUID().uuidString).db").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in try db.execute("CREATE TABLE t (v INTEGER)") }
        migrator.registerMigration("v2") { db in try db.execute("ALTER TABLE t ADD COLUMN w TEXT") }
        let queue = try DatabaseQueue(path: path)
        try migrator.migrate(queue)
        try migrator.migrate(queue)
        #expect(try queue.read { db in try migrator.appliedIdentifiers(db) } == ["v1", "v2"])
        try queue.write { db in try db.execute("INSERT INTO t (v, w) VALUES (1, 'x')") }

        var older = DatabaseMigrator()
        older.registerMigration("v1") { db in try db.execute("CREATE TABLE t (v INTEGER)") }
        #expect(throws: SQLiteError.self) { try older.migrate(queue) }
    }
}

/// A one-way flag one task sets and another polls.
private final class Flag: Sendable {
    private let value = Atomic<Bool>(false)

    var isSet: Bool { value.load(ordering: .acquiring) }

    func set() { value.store(true, ordering: .releasing) }
}
