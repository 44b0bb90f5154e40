import Postgres
import PostgresTesting

/// Which implementation of a port a contract case runs against: SyncEngineTesting's in-memory
/// fake, or Storage's on a fresh, migrated PostgreSQL database.
enum Implementation: String, CaseIterable, Sendable {
    case fake
    case postgres

    /// A database for the PostgreSQL implementation; nil for the fake.
    func database() throws -> PostgresClient? {
        self == .postgres ? try StorageDatabase.migrated() : nil
    }
}
