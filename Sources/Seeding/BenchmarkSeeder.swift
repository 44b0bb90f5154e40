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
        return try database.withTransaction { connection in
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
            // Numbers come from the server sequence, like any change, in one block
            // (SeedSQL.reserve).
            try connection.execute(
                """
                WITH base AS (SELECT \(unescaped: SeedSQL.reserve("\(records)")) AS v)
                INSERT INTO records (collection, record_id, payload, field_meta, server_seq, user_scope, team_scope, schema_version)
                SELECT 'jobs', 'seed-' || n,
                       jsonb_build_object('title', 'Job ' || n, 'status', 'in_progress', \(labor)::text, n % 480,
                                          'assigneeId', 'u-seed-' || (n % \(users)), 'teamId', 'seed-team-' || ((n % \(users)) / 20)),
                       (SELECT jsonb_object_agg(field, meta.value)
                        FROM unnest(ARRAY['title', 'status', \(labor)::text, 'assigneeId', 'teamId']) field,
                             (SELECT jsonb_build_object('seq', base.v + n + 1, 'opId', 'seed-op-' || n,
                                                        'deviceId', 'seed-device-' || (n % \(users))) AS value) meta),
                       base.v + n + 1, 'user:u-seed-' || (n % \(users)), 'team:seed-team-' || ((n % \(users)) / 20), \(schemaVersion)::int
                FROM base, generate_series(0, \(records) - 1) n
                """)
            return (0..<users).map { "u-seed-\($0)" }
        }
    }

    /// Refreshes planner statistics after a bulk load.
    public func analyze() throws {
        try database.withConnection { try $0.executeScript("SET statement_timeout = 0; ANALYZE records; ANALYZE users; RESET statement_timeout") }
    }
}
