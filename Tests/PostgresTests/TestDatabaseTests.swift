import Postgres
import PostgresTesting
import Testing

@Suite("TestDatabase")
struct TestDatabaseTests {
    @Test("every call hands out a new, isolated database on the shared server")
    func isolatesDatabases() throws {
        let first = try TestDatabase.configuration()
        let second = try TestDatabase.configuration()
        #expect(first.database != second.database)
        #expect(first.port == second.port)
        let one = try PostgresConnection(configuration: first, logger: testLogger)
        defer { one.close() }
        let other = try PostgresConnection(configuration: second, logger: testLogger)
        defer { other.close() }
        try one.execute("CREATE TABLE only_here (x int)")
        #expect(try other.query("SELECT 1 FROM pg_tables WHERE tablename = 'only_here'").isEmpty)
    }
}
