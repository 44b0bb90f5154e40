import Foundation
public import Postgres
public import SyncEngine
import SyncProtocol

/// The team roll-up on PostgreSQL, for supervisors (their team) and administrators (any team).
public struct PostgresTeamRollupStore: TeamRollupStore {
    let database: PostgresClient

    public init(database: PostgresClient) {
        self.database = database
    }

    /// Every member of `teamId`, by user name, with their figures; each table is grouped
    /// once for the whole team, so the cost does not grow with a query per member.
    public func rollup(teamId: String) throws -> [MemberRollup] {
        let rows = try database.connection { connection in
            try connection.query(
                """
                WITH members AS (SELECT id, username, role, suspended FROM users WHERE team_id = \(teamId))
                SELECT m.id, m.username, m.role, m.suspended,
                       COALESCE(r.active, 0), COALESCE(r.in_review, 0), COALESCE(r.deleted, 0),
                       COALESCE(o.applied, 0), COALESCE(o.deferred, 0), COALESCE(o.rejected, 0), COALESCE(o.conflict, 0),
                       COALESCE(c.open, 0), COALESCE(d.devices, 0), d.last_sync
                FROM members m
                LEFT JOIN (
                  SELECT user_scope, count(*) FILTER (WHERE deleted_seq IS NULL) AS active,
                         count(*) FILTER (WHERE deleted_seq IS NULL AND conflict_id IS NOT NULL) AS in_review,
                         count(*) FILTER (WHERE deleted_seq IS NOT NULL) AS deleted
                  FROM records WHERE user_scope IN (SELECT 'user:' || id FROM members) GROUP BY user_scope) r ON r.user_scope = 'user:' || m.id
                LEFT JOIN (
                  SELECT author_id, \(unescaped: OpCounts.byStatus) FROM op_log_counts
                  WHERE author_id IN (SELECT id FROM members) GROUP BY author_id) o ON o.author_id = m.id
                LEFT JOIN (
                  SELECT author_id, count(*) AS open FROM conflicts
                  WHERE state = 'open' AND author_id IN (SELECT id FROM members) GROUP BY author_id) c ON c.author_id = m.id
                LEFT JOIN (
                  SELECT user_id, count(*) AS devices, max(last_sync_at) AS last_sync FROM devices
                  WHERE user_id IN (SELECT id FROM members) GROUP BY user_id) d ON d.user_id = m.id
                ORDER BY m.username
                """)
        }
        return try rows.map { row in
            MemberRollup(
                userId: try row.decode(0), username: try row.decode(1), role: Role(rawValue: try row.decode(2)) ?? .field,
                suspended: try row.decode(3), activeRecords: try row.decode(4), recordsInReview: try row.decode(5),
                deletedRecords: try row.decode(6), opsApplied: try row.decode(7), opsDeferred: try row.decode(8), opsRejected: try row.decode(9),
                opsConflict: try row.decode(10), openConflicts: try row.decode(11), devices: try row.decode(12), lastSyncAt: try row.decode(13))
        }
    }

    /// The teams that have members, sorted; an administrator picks among them.
    public func teams() throws -> [String] {
        try database.connection { connection in
            try connection.query("SELECT DISTINCT team_id FROM users WHERE team_id IS NOT NULL ORDER BY 1").map { try $0.decode(0) }
        }
    }
}
