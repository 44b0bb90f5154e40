public import Foundation
public import Postgres
public import SyncEngine

/// The back-office charts' figures on PostgreSQL: each chart is one grouped query that
/// buckets rows with `width_bucket`, so only the buckets travel back.
public struct PostgresActivityStore: ActivityStore {
    let database: PostgresClient

    public init(database: PostgresClient) {
        self.database = database
    }

    /// How the ops that reached the server in each period ended. The range on `received_at`
    /// (with `status <> 'deferred'`) is the partial index `op_log_received_at`.
    public func opOutcomes(teamId: String?, boundaries: [Date]) throws -> [OpOutcomeCounts] {
        guard let first = boundaries.first, let last = boundaries.last, boundaries.count > 1 else { return [] }
        let rows = try database.connection { connection in
            try connection.query(
                """
                SELECT width_bucket(o.received_at, \(boundaries)::timestamptz[]) AS period, o.status, count(*)
                FROM op_log o
                WHERE o.received_at >= \(first) AND o.received_at < \(last) AND o.status <> 'deferred'
                  AND (\(teamId)::text IS NULL OR o.author_id IN (SELECT id FROM users WHERE team_id = \(teamId)))
                GROUP BY 1, 2
                """)
        }
        var periods = Array(repeating: OpOutcomeCounts(), count: boundaries.count - 1)
        for row in rows {
            let (bucket, status, count) = try row.decode((Int, String, Int).self)
            guard periods.indices.contains(bucket - 1) else { continue }
            switch status {
            case "applied": periods[bucket - 1].applied += count
            case "rejected": periods[bucket - 1].rejected += count
            case "conflict": periods[bucket - 1].conflict += count
            default: continue
            }
        }
        return periods
    }

    /// Devices by time since their last sync, for the team's members when given. `width_bucket`
    /// gives 0 below `ages[0]` (a sync stamped in the future included), `ages.count` from the
    /// last age on, and NULL for a device that never synced.
    public func devicesBySyncAge(teamId: String?, now: Date, ages: [TimeInterval]) throws -> AgeDistribution {
        let rows = try database.connection { connection in
            try connection.query(
                """
                SELECT width_bucket(extract(epoch FROM \(now)::timestamptz - d.last_sync_at)::float8, \(ages)::float8[]) AS bucket, count(*)
                FROM devices d LEFT JOIN users u ON u.id = d.user_id
                WHERE (\(teamId)::text IS NULL OR u.team_id = \(teamId))
                GROUP BY 1
                """)
        }
        var distribution = AgeDistribution(counts: Array(repeating: 0, count: ages.count + 1), never: 0)
        for row in rows {
            let (bucket, count) = try row.decode((Int?, Int).self)
            if let bucket {
                distribution.counts[min(max(bucket, 0), ages.count)] += count
            } else {
                distribution.never += count
            }
        }
        return distribution
    }

    /// Open conflicts per collection by age, for the team the review queue files them under
    /// (their record's team, else their author's). The state filter is the partial index
    /// `conflicts_open`.
    public func openConflictsByAge(teamId: String?, now: Date, ages: [TimeInterval]) throws -> [(collection: String, counts: [Int])] {
        let rows = try database.connection { connection in
            try connection.query(
                """
                SELECT c.collection, width_bucket(extract(epoch FROM \(now)::timestamptz - c.opened_at)::float8, \(ages)::float8[]) AS bucket, count(*)
                FROM conflicts c LEFT JOIN users u ON u.id = c.author_id
                WHERE c.state = 'open' AND (\(teamId)::text IS NULL OR COALESCE(\(unescaped: PostgresConflictStore.recordTeam), u.team_id) = \(teamId))
                GROUP BY 1, 2 ORDER BY 1
                """)
        }
        var result: [(collection: String, counts: [Int])] = []
        for row in rows {
            let (collection, bucket, count) = try row.decode((String, Int, Int).self)
            if result.last?.collection != collection { result.append((collection, Array(repeating: 0, count: ages.count + 1))) }
            result[result.count - 1].counts[min(max(bucket, 0), ages.count)] += count
        }
        return result
    }
}
