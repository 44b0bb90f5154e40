import Foundation
import Postgres
import Testing

@Suite("PostgresQuery")
struct PostgresQueryTests {
    @Test("turns interpolated values into numbered binds and keeps unescaped fragments")
    func interpolation() {
        let id = 42
        let name: String? = nil
        let table = "devices"
        let query: PostgresQuery = "SELECT * FROM \(unescaped: table) WHERE id = \(id) AND name = \(name) AND tag = \("x'); DROP TABLE x; --")"
        #expect(query.sql == "SELECT * FROM devices WHERE id = $1 AND name = $2 AND tag = $3")
        #expect(query.binds == ["42", nil, "x'); DROP TABLE x; --"])
    }

    @Test("sends hostile text as a value, never as SQL")
    func parameterizedQueries() throws {
        let connection = try sessionConnection()
        defer { connection.close() }
        try connection.execute("CREATE TEMP TABLE notes (id int PRIMARY KEY, body text)")
        let hostile = "'); DROP TABLE notes; --"
        #expect(try connection.execute("INSERT INTO notes VALUES (\(1), \(hostile)), (\(2), \("plain"))") == 2)
        let rows = try connection.query("SELECT id, body FROM notes WHERE body = \(hostile)")
        #expect(rows.count == 1)
        #expect(try rows[0].decode((Int, String).self) == (1, hostile))
        #expect(try connection.execute("UPDATE notes SET body = \("changed") WHERE id > \(0)") == 2)
    }

    @Test("runs explicit multi-row statements built at run time")
    func explicitBinds() throws {
        let connection = try sessionConnection()
        defer { connection.close() }
        try connection.execute("CREATE TEMP TABLE pairs (k text, v int)")
        let pairs = [("a", 1), ("b", 2), ("c", 3)]
        let placeholders = pairs.indices.map { "($\($0 * 2 + 1), $\($0 * 2 + 2)::int)" }.joined(separator: ", ")
        let binds = pairs.flatMap { [$0.0.postgresText, $0.1.postgresText] }
        #expect(try connection.execute(PostgresQuery("INSERT INTO pairs VALUES \(placeholders)", binds: binds)) == 3)
        let sum = try connection.query("SELECT sum(v)::int FROM pairs")[0].decode(0, as: Int.self)
        #expect(sum == 6)
    }
}
