import Foundation
import SQLite
import Testing

@Suite("SQLite wrapper")
struct SQLiteDatabaseTests {
    @Test("Values of every type round-trip through binds and rows")
    func roundTrip() throws {
        let db = try SQLiteDatabase(path: ":memory:")
        try db.execute("CREATE TABLE t (i INTEGER, r REAL, s TEXT, b BLOB, n TEXT)")
        try db.execute("INSERT INTO t VALUES (?, ?, ?, ?, ?)", [.integer(-42), .real(2.5), "héllo \"x\" ✓", .blob(Data([0, 255, 7])), nil])
        let row = try #require(try db.query("SELECT * FROM t").first)
        #expect(row["i"] == .integer(-42) && row["r"] == .real(2.5) && row["s"] == .text("héllo \"x\" ✓"))
        #expect(row["b"] == .blob(Data([0, 255, 7])) && row["n"] == .null)
    }

    @Test("A throwing transaction body rolls back; a returning one commits")
    func transactions() throws {
        let db = try SQLiteDatabase(path: ":memory:")
        try db.execute("CREATE TABLE t (v INTEGER PRIMARY KEY)")
        struct Abort: Error {}
        #expect(throws: Abort.self) {
            try db.transaction {
                try db.execute("INSERT INTO t VALUES (1)")
                throw Abort()
            }
        }
        try db.transaction { try db.execute("INSERT INTO t VALUES (2)") }
        #expect(try db.query("SELECT v FROM t").map { $0["v"] } == [.integer(2)])
    }

    @Test("Errors carry the result code, message and SQL")
    func errors() throws {
        let db = try SQLiteDatabase(path: ":memory:")
        try db.execute("CREATE TABLE t (v INTEGER PRIMARY KEY)")
        try db.execute("INSERT INTO t VALUES (1)")
        do {
            try db.execute("INSERT INTO t VALUES (?)", [1])
            Issue.record("a duplicate key must fail")
        } catch let error as SQLiteError {
            #expect(error.code.primary == .constraint && error.sql == "INSERT INTO t VALUES (?)")
        }
        #expect(throws: SQLiteError.self) { try db.query("SELEC nonsense") }
        #expect(throws: SQLiteError.self) { try db.execute("INSERT INTO t VALUES (?)", []) }
    }

    @Test("A file database keeps committed rows across connections")
    func durableFile() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sqlite-\(UUID().uuidString).db").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            let db = try SQLiteDatabase(path: path)
            try db.execute("CREATE TABLE op_log (op_id TEXT PRIMARY KEY)")
            try db.execute("INSERT INTO op_log VALUES ('op-1')")
            db.close()
        }
        let reopened = try SQLiteDatabase(path: path)
        #expect(try reopened.query("SELECT op_id FROM op_log").count == 1)
        #expect(try reopened.query("PRAGMA journal_mode").first?["journal_mode"] == .text("wal"))
    }
}
