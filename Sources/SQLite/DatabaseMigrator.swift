/// Applies a schema's migrations in order, each once and in its own transaction, and
/// records them in the `schema_migrations` table (GRDB's `DatabaseMigrator`).
///
/// ```swift
/// var migrator = DatabaseMigrator()
/// migrator.registerMigration("v1") { db in
///     try db.execute("CREATE TABLE outbox (client_seq INTEGER PRIMARY KEY, op_id TEXT NOT NULL)")
/// }
/// try migrator.migrate(queue)
/// ```
public struct DatabaseMigrator: Sendable {
    private var migrations: [(identifier: String, migrate: @Sendable (Database) throws -> Void)] = []

    public init() {}

    /// Adds a migration after the ones registered before it.
    /// - Precondition: `identifier` is new: identifiers name migrations forever.
    public mutating func registerMigration(_ identifier: String, migrate: @escaping @Sendable (Database) throws -> Void) {
        precondition(!migrations.contains { $0.identifier == identifier }, "migration \(identifier) is registered twice")
        migrations.append((identifier, migrate))
    }

    /// Applies the migrations the database has not seen yet.
    /// - Throws: `SQLiteError` when a migration fails (it is rolled back and later ones do not
    ///   run), or, before changing anything, when the database holds migrations this code
    ///   does not know: a newer version wrote it.
    public func migrate(_ queue: DatabaseQueue) throws {
        let unknown = try queue.read { db in try appliedIdentifiers(db) }.subtracting(migrations.map(\.identifier))
        guard unknown.isEmpty else {
            throw SQLiteError(code: .error, message: "the database was migrated by a newer version (\(unknown.sorted().joined(separator: ", ")))")
        }
        for migration in migrations {
            try queue.write { db in
                try db.execute("CREATE TABLE IF NOT EXISTS schema_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
                guard try db.value(Int.self, "SELECT 1 FROM schema_migrations WHERE identifier = ?", [migration.identifier]) == nil else { return }
                try migration.migrate(db)
                try db.execute("INSERT INTO schema_migrations (identifier) VALUES (?)", [migration.identifier])
            }
        }
    }

    /// The identifiers of the migrations applied to `db` (none on a new database).
    public func appliedIdentifiers(_ db: Database) throws -> Set<String> {
        let exists = try db.value(Int.self, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'") != nil
        guard exists else { return [] }
        return Set(try db.values(String.self, "SELECT identifier FROM schema_migrations"))
    }
}
