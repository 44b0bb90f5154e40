import Foundation
import Postgres

/// PostgreSQL's own account of a benchmark phase (`pg_stat_statements`): which statements took
/// the database's time, to profile instead of guessing.
struct StatementProfile {
    /// What the embedded cluster must start with for it.
    static let clusterSettings = ["shared_preload_libraries=pg_stat_statements", "pg_stat_statements.track=all"]

    let database: PostgresClient

    /// Forgets what was counted so far (creating the extension the first time).
    func reset() throws {
        try database.withConnection { connection in
            try connection.executeScript("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
            _ = try connection.query("SELECT pg_stat_statements_reset()")
        }
    }

    /// The `top` statements run since `reset()` by total execution time: share of the total,
    /// calls, mean time, and the start of the text. Time spent waiting inside a statement (a
    /// lock, `pg_sleep`) counts too.
    func report(_ label: String, top: Int = 12) throws -> String {
        let rows = try database.withConnection { connection in
            try connection.query(
                """
                SELECT calls, total_exec_time, mean_exec_time, sum(total_exec_time) OVER (), query FROM pg_stat_statements
                WHERE query NOT LIKE '%pg_stat_statements%' ORDER BY total_exec_time DESC LIMIT \(top)
                """)
        }
        var lines = ["\(label) statements (pg_stat_statements, costliest first):"]
        for row in rows {
            let text = try row.decode(4, as: String.self).split(whereSeparator: \.isWhitespace).joined(separator: " ")
            lines.append(
                String(
                    format: "  %5.1f %%  %7d calls  %8.3f ms  %@",
                    100 * (try row.decode(1, as: Double.self)) / max(try row.decode(3, as: Double.self), 1e-9),
                    try row.decode(0, as: Int64.self), try row.decode(2, as: Double.self), String(text.prefix(110))))
        }
        return lines.joined(separator: "\n")
    }
}
