import Postgres
import PostgresTesting

/// Which implementation of a port a contract case runs against: SyncEngineTesting's in-memory
/// fake, or Storage's on a fresh, migrated PostgreSQL database.
enum Implementation: String, CaseIterable, Sendable {
    case fake
    case postgres

    /// A database for the PostgreSQL implementation, holding the users `userIds` (rows that
    /// PostgreSQL's foreign keys ask for and a fake does not know); nil for the fake.
    func database(users userIds: [String] = []) throws -> PostgresClient? {
        guard self == .postgres else { return nil }
        let database = try StorageDatabase.migrated()
        try database.withConnection { connection in
            for id in userIds {
                _ = try connection.execute("INSERT INTO users (id, username, role, password_hash) VALUES (\(id), \(id), 'field', 'h')")
            }
        }
        return database
    }
}
