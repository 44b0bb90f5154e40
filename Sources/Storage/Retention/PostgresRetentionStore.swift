import Foundation
public import Postgres
public import SyncEngine

/// Retention on PostgreSQL: each rule is a condition on one table; a batch is a `LIMIT`ed
/// delete of rows meeting it, in a transaction of its own.
public struct PostgresRetentionStore: RetentionStore {
    let database: PostgresClient

    public init(database: PostgresClient) {
        self.database = database
    }

    public func count(_ rule: RetentionRule, _ cutoffs: RetentionCutoffs) throws -> Int {
        let (table, condition) = Self.rows(rule, cutoffs)
        let query = PostgresQuery("SELECT count(*) FROM \(table) WHERE \(condition.sql)", binds: condition.binds)
        return try database.connection { Int(try $0.query(query)[0].decode(0, as: Int64.self)) }
    }

    public func delete(_ rule: RetentionRule, _ cutoffs: RetentionCutoffs, limit: Int) throws -> Int {
        let (table, condition) = Self.rows(rule, cutoffs)
        let query = PostgresQuery(
            "DELETE FROM \(table) WHERE ctid IN (SELECT ctid FROM \(table) WHERE \(condition.sql) LIMIT \(max(limit, 1)))",
            binds: condition.binds)
        return try database.connection { try $0.execute(query) }
    }

    /// The table a rule deletes from and the condition its rows meet.
    private static func rows(_ rule: RetentionRule, _ cutoffs: RetentionCutoffs) -> (table: String, condition: PostgresQuery) {
        switch rule {
        case .opResults: ("op_log", "status <> 'deferred' AND received_at < \(cutoffs.opResults)")
        case .tombstones: ("records", "deleted_seq IS NOT NULL AND updated_at < \(cutoffs.tombstones)")
        case .scopeExits: ("scope_exits", "exited_at < \(cutoffs.tombstones)")
        case .idempotencyKeys: ("idempotency_keys", "created_at < \(cutoffs.opResults)")
        case .webSessions: ("web_sessions", "expires_at <= \(cutoffs.now) OR last_seen_at <= \(cutoffs.webSessionIdle)")
        case .deviceTokens: ("device_tokens", "expires_at < \(cutoffs.opResults)")
        case .events: ("events", "created_at < \(cutoffs.events)")
        }
    }
}
