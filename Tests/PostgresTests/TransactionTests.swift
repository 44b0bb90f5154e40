import Postgres
import Testing

@Suite("Transactions")
struct TransactionTests {
    struct Abort: Error {}

    let connection: PostgresConnection

    init() throws {
        connection = try sessionConnection()
        try connection.execute("CREATE TEMP TABLE entries (name text)")
    }

    private func names() throws -> [String] {
        try connection.query("SELECT name FROM entries ORDER BY name").map { try $0.decode(0, as: String.self) }
    }

    @Test("commits the body's work and returns its value")
    func commits() throws {
        let value = try connection.transaction { db in
            try db.execute("INSERT INTO entries VALUES (\("a"))")
        }
        #expect(value == 1)
        #expect(try names() == ["a"])
    }

    @Test("rolls back and rethrows when the body throws")
    func rollsBack() throws {
        #expect(throws: Abort.self) {
            try connection.transaction { db in
                try db.execute("INSERT INTO entries VALUES (\("a"))")
                throw Abort()
            }
        }
        #expect(try names() == [])
        try connection.execute("INSERT INTO entries VALUES (\("usable"))")
    }

    @Test("a failed savepoint keeps the outer transaction's work")
    func savepointRollback() throws {
        try connection.transaction { db in
            try db.execute("INSERT INTO entries VALUES (\("outer"))")
            #expect(throws: PostgresError.self) {
                try db.savepoint { inner in
                    try inner.execute("INSERT INTO entries VALUES (\("inner"))")
                    try inner.execute("INSERT INTO no_such_table VALUES (1)")
                }
            }
            // A nested transaction call is a savepoint too.
            try db.transaction { inner in try inner.execute("INSERT INTO entries VALUES (\("nested"))") }
        }
        #expect(try names() == ["nested", "outer"])
    }

    @Test("refuses to commit after a statement error the body swallowed")
    func swallowedError() throws {
        let error = #expect(throws: PostgresError.self) {
            try connection.transaction { db in
                try db.execute("INSERT INTO entries VALUES (\("lost"))")
                _ = try? db.execute("INSERT INTO no_such_table VALUES (1)")
            }
        }
        #expect(error?.code == .inFailedTransaction)
        #expect(try names() == [])
    }
}
