import Foundation
import Storage

/// A benchmark phase's costliest statements, as PostgreSQL counted them
/// (``StatementStatistics``), printed after the phase.
struct StatementProfile {
    let statistics: StatementStatistics

    /// Forgets what was counted so far.
    func reset() throws {
        try statistics.reset()
    }

    /// The `top` statements run since `reset()` by total execution time: share of the total,
    /// calls, mean time, and the start of the text.
    func report(_ label: String, top: Int = 12) throws -> String {
        let (entries, total) = try statistics.costliest(top)
        var lines = ["\(label) statements (pg_stat_statements, costliest first):"]
        for entry in entries {
            lines.append(
                String(
                    format: "  %5.1f %%  %7d calls  %8.3f ms  %@", 100 * entry.totalMilliseconds / max(total, 1e-9), entry.calls,
                    entry.meanMilliseconds, String(entry.text.prefix(110))))
        }
        return lines.joined(separator: "\n")
    }
}
