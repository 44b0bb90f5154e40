import Foundation
public import Postgres
import Support

/// A fresh database with FieldSync's schema (the repository's `Migrations/`), for one test.
public enum StorageDatabase {
    static let migrations = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Migrations")

    /// A pool on a new, migrated database (call `shutdown()` when done).
    public static func migrated() throws -> PostgresClient {
        let client = try TestDatabase.client(maxConnections: 4)
        try Migrator(client: client, directory: migrations, logger: Logger(label: "test", level: .warning)).migrate()
        return client
    }
}
