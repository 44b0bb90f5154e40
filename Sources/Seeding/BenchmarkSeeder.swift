import Foundation
public import Postgres
import Storage

/// Bulk data for `fieldsync bench sync`: users and `jobs` records written straight into the
/// tables (as if pushed long ago), so pull costs can be measured on a large database without
/// pushing a million ops first.
public struct BenchmarkSeeder: Sendable {
    let database: PostgresClient

    public init(database: PostgresClient) {
        self.database = database
    }

    /// Creates `users` field users over teams of 20 and `records` jobs spread evenly over them,
    /// each created by one op of its user's device (every field's metadata names both);
    /// returns the user ids.
    /// - Parameter schemaVersion: The version the jobs are stored at: 3 (the built-in schema's),
    ///   or 2, as written before `laborMinutes` was renamed `labor_minutes` (for the record migration).
    public func seed(users: Int, records: Int, schemaVersion: Int = 3) throws -> [String] {
        let labor = schemaVersion < 3 ? "laborMinutes" : "labor_minutes"
        try database.withTransaction { connection in
            try connection.executeScript(BackOfficeSeeder.noTimeouts)
            try connection.execute(
                """
                INSERT INTO teams (id) SELECT 'seed-team-' || t FROM generate_series(0, (\(users) - 1) / 20) t ON CONFLICT DO NOTHING
                """)
            try connection.execute(
                """
                INSERT INTO users (id, username, role, team_id, password_hash)
                SELECT 'u-seed-' || i, 'seed-' || i, 'field', 'seed-team-' || (i / 20), '!' FROM generate_series(0, \(users) - 1) i
                """)
        }
        // A transaction per block, as pushes write: each block has its own transaction id and
        // ascending numbers from the server sequence (SeedSQL.reserve), so pulls page through
        // them as through pushed changes. (A million rows under one transaction id would also
        // mislead the planner, which estimates the position range from the id alone.)
        for first in stride(from: 0, to: records, by: Self.recordsPerTransaction) {
            let last = min(first + Self.recordsPerTransaction, records) - 1
            try database.withTransaction { connection in
                try connection.executeScript(BackOfficeSeeder.noTimeouts + "; SET LOCAL synchronous_commit = off")
                try connection.execute(
                    """
                    WITH base AS (SELECT \(unescaped: SeedSQL.reserve("\(last - first + 1)")) - \(first)::int AS v)
                    INSERT INTO records (collection, record_id, payload, field_meta, server_seq, user_scope, team_scope, schema_version)
                    SELECT 'jobs', 'seed-' || n,
                           jsonb_build_object('title', 'Job ' || n, 'status', 'in_progress', \(labor)::text, n % 480,
                                              'assigneeId', 'u-seed-' || (n % \(users)), 'teamId', 'seed-team-' || ((n % \(users)) / 20)),
                           (SELECT jsonb_object_agg(field, meta.value)
                            FROM unnest(ARRAY['title', 'status', \(labor)::text, 'assigneeId', 'teamId']) field,
                                 (SELECT jsonb_build_object('seq', base.v + n + 1, 'opId', 'seed-op-' || n,
                                                            'deviceId', 'seed-device-' || (n % \(users))) AS value) meta),
                           base.v + n + 1, 'user:u-seed-' || (n % \(users)), 'team:seed-team-' || ((n % \(users)) / 20), \(schemaVersion)::int
                    FROM base, generate_series(\(first)::int, \(last)::int) n
                    """)
            }
        }
        return (0..<users).map { "u-seed-\($0)" }
    }

    /// Records per seeding transaction: a large push.
    static let recordsPerTransaction = 500

    /// Brings the loaded tables to the state a running server keeps them in: vacuumed (rows
    /// marked visible to all, so autovacuum does not do it during the measurements that follow),
    /// with fresh planner statistics, and checkpointed (so the load's pages are not written out
    /// during the first measurement).
    public func analyze() throws {
        try database.withConnection {
            // One statement per script: VACUUM refuses the transaction a script of several runs in.
            for statement in ["SET statement_timeout = 0", "VACUUM (ANALYZE) records, users", "CHECKPOINT", "RESET statement_timeout"] {
                try $0.executeScript(statement)
            }
        }
    }
}
