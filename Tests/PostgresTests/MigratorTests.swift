import Foundation
import Postgres
import PostgresTesting
import Testing

@Suite("Migrator")
final class MigratorTests: Sendable {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("migrations-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    private func write(_ files: [String: String]) throws {
        for (name, sql) in files { try sql.write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8) }
    }

    private static let initial = [
        "0001_create_log.sql": "CREATE TABLE log (step int); INSERT INTO log VALUES (1);",
        "0002_add_devices.sql": "CREATE TABLE devices (id int PRIMARY KEY); INSERT INTO log VALUES (2);",
        "README.md": "not a migration",
    ]

    private func steps(_ client: PostgresClient) throws -> [Int] {
        try client.withConnection { try $0.query("SELECT step FROM log ORDER BY step").map { try $0.decode(0, as: Int.self) } }
    }

    @Test("applies migrations in order, records them, and does nothing on a rerun")
    func appliesInOrder() throws {
        try write(Self.initial)
        let client = try TestDatabase.client()
        defer { client.shutdown() }
        let migrator = Migrator(client: client, directory: directory, logger: testLogger)
        #expect(try migrator.migrate() == ["0001_create_log", "0002_add_devices"])
        #expect(try migrator.migrate() == [])
        try write(["0003_more.sql": "INSERT INTO log VALUES (3);"])
        #expect(try migrator.migrate() == ["0003_more"])
        #expect(try steps(client) == [1, 2, 3])
        let recorded = try client.withConnection { db in
            try db.query("SELECT version, name FROM schema_migrations ORDER BY version").map { try $0.decode((Int, String).self) }
        }
        #expect(recorded.map(\.1) == ["0001_create_log", "0002_add_devices", "0003_more"])
    }

    @Test("two migrators started together apply each migration exactly once")
    func concurrentRunners() throws {
        try write(Self.initial.merging(["0003_slow.sql": "SELECT pg_sleep(0.1); INSERT INTO log VALUES (3);"]) { $1 })
        let configuration = try TestDatabase.configuration()
        let applied = Collected<[String]>()
        let directory = directory
        onThreads(2) { _ in
            let client = PostgresClient(configuration: configuration, logger: testLogger)
            defer { client.shutdown() }
            applied.append((try? Migrator(client: client, directory: directory, logger: testLogger).migrate()) ?? ["failed"])
        }
        #expect(applied.all.flatMap { $0 }.sorted() == ["0001_create_log", "0002_add_devices", "0003_slow"])
        let client = PostgresClient(configuration: configuration, logger: testLogger)
        defer { client.shutdown() }
        #expect(try steps(client) == [1, 2, 3])
    }

    @Test("a failing migration is rolled back, named in the error, and retried next time")
    func failingMigration() throws {
        try write(Self.initial.merging(["0003_broken.sql": "INSERT INTO log VALUES (3); SELECT * FROM missing_table;"]) { $1 })
        let client = try TestDatabase.client()
        defer { client.shutdown() }
        let migrator = Migrator(client: client, directory: directory, logger: testLogger)
        let error = #expect(throws: PostgresError.self) { try migrator.migrate() }
        #expect(error?.code == .undefinedTable)
        #expect(error?.message.contains("0003_broken.sql") == true)
        #expect(try steps(client) == [1, 2])
        try write(["0003_broken.sql": "INSERT INTO log VALUES (3);"])
        #expect(try migrator.migrate() == ["0003_broken"])
    }

    @Test(
        "refuses gaps, duplicate numbers and malformed names before touching the database",
        arguments: [
            ["0001_a.sql": "", "0003_c.sql": ""],
            ["0001_a.sql": "", "0001_b.sql": ""],
            ["0002_a.sql": ""],
            ["1_a.sql": ""],
            ["0001-a.sql": ""],
            ["0001_.sql": ""],
        ])
    func invalidDirectories(files: [String: String]) throws {
        try write(files)
        let unreachable = PostgresConfiguration(host: "127.0.0.1", port: 1, user: "nobody", database: "none")
        let client = PostgresClient(configuration: unreachable, logger: testLogger)
        let error = #expect(throws: PostgresError.self) { try Migrator(client: client, directory: directory, logger: testLogger).migrate() }
        #expect(error?.code == .invalidMigration)
    }
}
