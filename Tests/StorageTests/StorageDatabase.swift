import Foundation
import Postgres
import PostgresTesting
import Support

/// A fresh, migrated database for one test.
enum StorageDatabase {
    static let migrations = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Migrations")

    static func migrated() throws -> PostgresClient {
        let client = try TestDatabase.client(maxConnections: 4)
        try Migrator(client: client, directory: migrations, logger: Logger(label: "test", level: .warning)).migrate()
        return client
    }
}
