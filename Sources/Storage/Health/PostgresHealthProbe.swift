public import Postgres
public import SyncEngine

/// Asks PostgreSQL `SELECT 1` on a pooled connection.
public struct PostgresHealthProbe: HealthProbe {
    let database: PostgresClient

    public init(database: PostgresClient) {
        self.database = database
    }

    public func databaseAnswers() -> Bool {
        (try? database.connection { try $0.query("SELECT 1") }) != nil
    }
}
