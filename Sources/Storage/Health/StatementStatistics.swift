public import Postgres

/// PostgreSQL's own account of the statements run (`pg_stat_statements`), for benchmarks that
/// profile a phase: which statements took the database's time. The cluster must preload the
/// module (``clusterSettings``).
public struct StatementStatistics: Sendable {
    /// One statement's share of the phase.
    public struct Entry: Sendable {
        public let calls: Int64
        public let totalMilliseconds: Double
        public let meanMilliseconds: Double
        /// The statement's text with its constants as placeholders, space collapsed.
        public let text: String
    }

    /// What the server must start with for these statistics.
    public static let clusterSettings = ["shared_preload_libraries=pg_stat_statements", "pg_stat_statements.track=all"]

    private let database: PostgresClient

    public init(database: PostgresClient) {
        self.database = database
    }

    /// Forgets what was counted so far (creating the extension the first time).
    public func reset() throws {
        try database.withConnection { connection in
            try connection.executeScript("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
            _ = try connection.query("SELECT pg_stat_statements_reset()")
        }
    }

    /// The `limit` statements run since ``reset()`` with the most execution time, costliest
    /// first, and the time of all of them. Time spent waiting inside a statement (a lock,
    /// `pg_sleep`) counts too.
    public func costliest(_ limit: Int) throws -> (entries: [Entry], totalMilliseconds: Double) {
        let rows = try database.withConnection { connection in
            try connection.query(
                """
                SELECT calls, total_exec_time, mean_exec_time, sum(total_exec_time) OVER (), query FROM pg_stat_statements
                WHERE query NOT LIKE '%pg_stat_statements%' ORDER BY total_exec_time DESC LIMIT \(limit)
                """)
        }
        let entries = try rows.map { row in
            Entry(
                calls: try row.decode(0), totalMilliseconds: try row.decode(1), meanMilliseconds: try row.decode(2),
                text: try row.decode(4, as: String.self).split(whereSeparator: \.isWhitespace).joined(separator: " "))
        }
        return (entries, try rows.first?.decode(3, as: Double.self) ?? 0)
    }
}
