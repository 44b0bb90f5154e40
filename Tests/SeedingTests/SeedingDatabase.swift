import Foundation
import Postgres
import PostgresTesting
import Support

/// A fresh database with FieldSync's schema (the checkout's `Migrations/`), for one suite to seed.
enum SeedingDatabase {
    static func migrated() throws -> PostgresClient {
        let checkout = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let client = try TestDatabase.client(maxConnections: 4)
        let logger = Logger(label: "seeding-test", level: .warning)
        try Migrator(client: client, directory: checkout.appendingPathComponent("Migrations"), logger: logger).migrate()
        return client
    }
}
