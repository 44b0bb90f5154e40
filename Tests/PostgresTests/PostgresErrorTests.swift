import Postgres
import Testing

@Suite("PostgresError")
struct PostgresErrorTests {
    @Test("a unique violation carries its SQLSTATE, constraint and detail, and hides row values from description")
    func uniqueViolation() throws {
        let connection = try sessionConnection()
        defer { connection.close() }
        try connection.execute("CREATE TEMP TABLE users (email text CONSTRAINT users_email_key UNIQUE)")
        try connection.execute("INSERT INTO users VALUES (\("ada@example.com"))")
        let error = #expect(throws: PostgresError.self) {
            try connection.execute("INSERT INTO users VALUES (\("ada@example.com"))")
        }
        #expect(error?.code == .uniqueViolation)
        #expect(error?.code.rawValue == "23505")
        #expect(error?.constraint == "users_email_key")
        #expect(error?.detail?.contains("ada@example.com") == true)
        #expect(error?.description.contains("ada@example.com") == false)
        #expect(error?.debugDescription.contains("INSERT INTO users") == true)
    }

    @Test("server errors map to named codes")
    func namedCodes() throws {
        let connection = try sessionConnection()
        defer { connection.close() }
        let missing = #expect(throws: PostgresError.self) { try connection.query("SELECT * FROM no_such_table") }
        #expect(missing?.code == .undefinedTable)
        let syntax = #expect(throws: PostgresError.self) { try connection.query("SELEC 1") }
        #expect(syntax?.code == .syntaxError)
        let cancelled = #expect(throws: PostgresError.self) {
            try connection.executeScript("SET statement_timeout = '10ms'; SELECT pg_sleep(1)")
        }
        #expect(cancelled?.code == .queryCanceled)
        #expect(PostgresError.Code.serializationFailure.isTransient && PostgresError.Code.deadlockDetected.isTransient)
    }

    @Test("a refused connection is connectionFailed with libpq's reason")
    func refusedConnection() throws {
        let configuration = PostgresConfiguration(host: "127.0.0.1", port: 1, user: "nobody", database: "none")
        let error = #expect(throws: PostgresError.self) { try PostgresConnection(configuration: configuration, logger: testLogger) }
        #expect(error?.code == .connectionFailed)
        #expect(error?.message.isEmpty == false)
    }
}
