import Postgres
import PostgresTesting
import Testing

@Suite("PostgresConnection")
struct PostgresConnectionTests {
    @Test("repeated SQL is prepared once per connection")
    func preparesOnce() throws {
        let connection = try sessionConnection()
        defer { connection.close() }
        for value in 1...3 { #expect(try connection.query("SELECT \(value)::int + 1")[0].decode(0, as: Int.self) == value + 1) }
        let prepared = try connection.query("SELECT count(*)::int FROM pg_prepared_statements WHERE statement = \("SELECT $1::int + 1")")
        #expect(try prepared[0].decode(0, as: Int.self) == 1)
    }

    @Test("a statement planned per run is never prepared, alone or in a pipeline")
    func plannedPerRun() throws {
        let connection = try sessionConnection()
        defer { connection.close() }
        let query: PostgresQuery = "SELECT \(2)::int * 21"
        #expect(try connection.query(query.plannedPerRun())[0].decode(0, as: Int.self) == 42)
        let rows = try connection.pipeline([query.plannedPerRun(), "SELECT \(1)::int"])
        #expect(try rows[0][0].decode(0, as: Int.self) == 42)
        let prepared = try connection.query("SELECT statement FROM pg_prepared_statements ORDER BY statement")
        #expect(
            try prepared.map { try $0.decode(0, as: String.self) } == [
                "SELECT $1::int", "SELECT statement FROM pg_prepared_statements ORDER BY statement",
            ])
    }

    @Test("keeps the number of prepared statements bounded")
    func boundsStatementCache() throws {
        let connection = try sessionConnection()
        defer { connection.close() }
        for value in 0..<300 { try connection.query("SELECT \(value)::int AS \(unescaped: "c\(value)")") }
        let count = try connection.query("SELECT count(*)::int FROM pg_prepared_statements")[0].decode(0, as: Int.self)
        #expect(count <= 256)
        #expect(try connection.query("SELECT \(5)::int AS c5")[0].decode(0, as: Int.self) == 5)
    }

    @Test("re-prepares a statement whose result columns changed with the schema")
    func survivesSchemaChange() throws {
        let connection = try sessionConnection()
        defer { connection.close() }
        try connection.executeScript("CREATE TEMP TABLE items (a int); INSERT INTO items VALUES (1)")
        #expect(try connection.query("SELECT * FROM items")[0].columnNames == ["a"])
        try connection.executeScript("ALTER TABLE items ADD COLUMN b text DEFAULT 'x'")
        let row = try connection.query("SELECT * FROM items")[0]
        #expect(try row.decode((Int, String).self) == (1, "x"))
    }

    @Test("runs scripts of several statements")
    func scripts() throws {
        let connection = try sessionConnection()
        defer { connection.close() }
        try connection.executeScript("CREATE TEMP TABLE a (x int); INSERT INTO a VALUES (1), (2); CREATE TEMP TABLE IF NOT EXISTS a (x int);")
        #expect(try connection.query("SELECT x FROM a").count == 2)
    }

    @Test("refuses a bind containing NUL instead of truncating it")
    func refusesNul() throws {
        let connection = try sessionConnection()
        defer { connection.close() }
        let error = #expect(throws: PostgresError.self) { try connection.query("SELECT \("a\u{0}b")") }
        #expect(error?.code == .encoding)
    }

    @Test("notices a terminated backend and reports connectionFailed")
    func terminatedBackend() throws {
        let configuration = try TestDatabase.configuration()
        let connection = try PostgresConnection(configuration: configuration, logger: testLogger)
        let admin = try PostgresConnection(configuration: configuration, logger: testLogger)
        defer { admin.close() }
        #expect(!connection.isBroken)
        try terminateBackend(try backendPID(connection), using: admin)
        #expect(eventually { connection.isBroken })
        let error = #expect(throws: PostgresError.self) { try connection.query("SELECT 1") }
        #expect(error?.code == .connectionFailed)
        connection.close()
        #expect(throws: PostgresError.self) { try connection.query("SELECT 1") }
    }
}
