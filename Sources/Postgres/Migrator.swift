public import Foundation
public import Support

/// Applies the forward-only SQL migrations of a directory (`Migrations/NNNN_name.sql`).
///
/// Each pending migration runs in its own transaction together with its row in
/// `schema_migrations(version, name, applied_at)`, so it is applied completely or not at all. The
/// whole run holds a PostgreSQL advisory lock: several FieldSync instances starting at once apply
/// each migration exactly once (the others wait, then find nothing left to do).
///
/// Scripts must not contain transaction control (`BEGIN`/`COMMIT`) or statements that cannot run in
/// a transaction (`CREATE INDEX CONCURRENTLY`).
///
/// ```swift
/// let applied = try Migrator(client: client, directory: URL(fileURLWithPath: "Migrations"), logger: logger).migrate()
/// ```
public struct Migrator: Sendable {
    private let client: PostgresClient
    private let directory: URL
    private let logger: Logger

    /// An arbitrary key all FieldSync migrators agree on ("FIELDSYN" in ASCII).
    static let advisoryLockKey: Int64 = 0x4649_454C_4453_594E

    public init(client: PostgresClient, directory: URL, logger: Logger) {
        self.client = client
        self.directory = directory
        self.logger = logger
    }

    /// Applies every migration not yet recorded, in order.
    /// - Returns: the names of the migrations applied now (`0003_add_devices`), empty when up to date.
    /// - Throws: `PostgresError(.invalidMigration)` for a malformed directory (before touching the
    ///   database), or the `PostgresError` of the failing migration, whose message names it.
    @discardableResult
    public func migrate() throws -> [String] {
        let migrations = try MigrationFile.load(from: directory)
        return try client.withConnection { connection in
            // A migration may rewrite a large table, and waits for another instance's migration:
            // the pool's session timeouts do not apply here.
            try connection.executeScript("SET statement_timeout = 0; SET lock_timeout = 0; SET idle_in_transaction_session_timeout = 0")
            defer { try? connection.executeScript("RESET statement_timeout; RESET lock_timeout; RESET idle_in_transaction_session_timeout") }
            // Session-level lock, released below or, if the connection dies, by the server.
            try connection.query("SELECT pg_advisory_lock(\(Self.advisoryLockKey))")
            defer { _ = try? connection.query("SELECT pg_advisory_unlock(\(Self.advisoryLockKey))") }
            try connection.executeScript(
                """
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    version integer PRIMARY KEY,
                    name text NOT NULL,
                    applied_at timestamptz NOT NULL DEFAULT now()
                )
                """)
            let applied = try recordedVersions(on: connection)
            let known = Set(migrations.map(\.version))
            for version in applied.subtracting(known).sorted() {
                logger.debug("database has a migration this build does not know", metadata: ["db.migration": "\(version)"])
            }
            return try migrations.filter { !applied.contains($0.version) }.map { migration in
                try apply(migration, on: connection)
                return migration.name
            }
        }
    }

    private func recordedVersions(on connection: PostgresConnection) throws -> Set<Int> {
        Set(try connection.query("SELECT version FROM schema_migrations").map { try $0.decode(0, as: Int.self) })
    }

    private func apply(_ migration: MigrationFile, on connection: PostgresConnection) throws {
        do {
            try connection.transaction { db in
                try db.executeScript(migration.sql)
                try db.execute("INSERT INTO schema_migrations (version, name) VALUES (\(migration.version), \(migration.name))")
            }
            logger.debug("migration applied", metadata: ["db.migration": migration.name])
        } catch var error as PostgresError {
            error.message = "migration \(migration.name).sql failed: \(error.message)"
            throw error
        }
    }
}
