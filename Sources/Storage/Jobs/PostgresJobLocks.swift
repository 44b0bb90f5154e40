public import Postgres
public import SyncEngine

/// Job locks as PostgreSQL session advisory locks, held on one pooled connection while the job
/// runs: visible to every process on the database, and released if the process dies.
public struct PostgresJobLocks: JobLocks {
    let database: PostgresClient

    public init(database: PostgresClient) {
        self.database = database
    }

    public func whileHolding<T>(_ name: String, _ body: () throws -> T) throws -> T? {
        try database.connection { connection in
            let key = "fieldsync.job.\(name)"
            guard try connection.query("SELECT pg_try_advisory_lock(hashtext(\(key)))")[0].decode(0, as: Bool.self) else { return nil }
            defer { _ = try? connection.query("SELECT pg_advisory_unlock(hashtext(\(key)))") }
            return try body()
        }
    }
}
