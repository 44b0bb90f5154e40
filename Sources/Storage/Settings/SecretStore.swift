import Cryptography
public import Foundation
public import Postgres

/// Server-generated keys, created once and then shared by every instance on the database.
public struct SecretStore: Sendable {
    private let database: PostgresClient

    public init(database: PostgresClient) {
        self.database = database
    }

    /// The secret called `name`, generated (32 random bytes) on first request.
    public func secret(named name: String) throws -> Data {
        try database.connection { connection in
            try connection.execute(
                """
                INSERT INTO server_secrets (name, value) VALUES (\(name), \(SecureRandom.bytes(32))) ON CONFLICT DO NOTHING
                """)
            return try connection.query("SELECT value FROM server_secrets WHERE name = \(name)")[0].decode("value", as: Data.self)
        }
    }
}
