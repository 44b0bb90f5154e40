public import Foundation
public import Postgres
public import SyncEngine

/// The dashboard's counts on PostgreSQL, from the account and sync tables.
public final class PostgresDashboardStore: DashboardStore {
    private let database: PostgresClient

    public init(database: PostgresClient) {
        self.database = database
    }

    /// Counts everything, or only what concerns one team (a supervisor's view): its
    /// members' users, devices and ops, and the conflicts and orders scoped to it or
    /// raised by its members.
    ///
    /// - Parameters:
    ///   - teamId: The team to count for, or nil for the whole server.
    ///   - startOfDay: Where "today" begins for `devicesSyncedToday`.
    public func counts(teamId: String?, startOfDay: Date) throws -> DashboardCounts {
        // Each subquery filters on the team only when one is given (a NULL bind disables it).
        // Records and conflicts carry scope keys (`team:<id>`), users the bare team id.
        let teamKey = teamId.map { ScopeKey.team($0).rawValue }
        let rows = try database.connection { connection in
            try connection.query(
                """
                SELECT
                  (SELECT count(*) FROM users u
                     WHERE NOT u.suspended AND (\(teamId)::text IS NULL OR u.team_id = \(teamId))) AS active_users,
                  (SELECT count(DISTINCT t.device_id) FROM device_tokens t JOIN users u ON u.id = t.user_id
                     WHERE t.revoked_at IS NULL AND t.expires_at > now()
                       AND (\(teamId)::text IS NULL OR u.team_id = \(teamId))) AS devices_with_tokens,
                  (SELECT count(*) FROM devices d JOIN users u ON u.id = d.user_id
                     WHERE d.last_sync_at >= \(startOfDay) AND (\(teamId)::text IS NULL OR u.team_id = \(teamId))) AS devices_synced_today,
                  (SELECT count(*) FROM op_log o JOIN users u ON u.id = o.author_id
                     WHERE o.status = 'deferred' AND (\(teamId)::text IS NULL OR u.team_id = \(teamId))) AS ops_deferred,
                  (SELECT count(*) FROM conflicts c
                     WHERE c.state = 'open' AND (\(teamKey)::text IS NULL OR \(teamKey) = ANY(c.scope_keys)
                       OR c.author_id IN (SELECT id FROM users WHERE team_id = \(teamId)))) AS open_conflicts,
                  (SELECT count(*) FROM records r
                     WHERE r.collection = 'orders' AND r.deleted_seq IS NULL AND r.payload->>'status' = 'SUBMITTED'
                       AND (\(teamKey)::text IS NULL OR r.team_scope = \(teamKey))) AS orders_submitted
                """)
        }
        let row = rows[0]
        return DashboardCounts(
            activeUsers: try row.decode("active_users"), devicesWithTokens: try row.decode("devices_with_tokens"),
            devicesSyncedToday: try row.decode("devices_synced_today"), opsDeferred: try row.decode("ops_deferred"),
            openConflicts: try row.decode("open_conflicts"), ordersSubmitted: try row.decode("orders_submitted"))
    }
}
