import Foundation
public import Postgres
public import SyncEngine

/// Retention on PostgreSQL: each rule is a `LIMIT`ed delete repeated, each batch in its own
/// transaction, until it removes nothing.
public struct PostgresRetentionStore: RetentionStore {
    let database: PostgresClient
    let batchSize: Int

    public init(database: PostgresClient, batchSize: Int = 5_000) {
        self.database = database
        self.batchSize = batchSize
    }

    public func purge(_ cutoffs: RetentionCutoffs) throws -> RetentionReport {
        var report = RetentionReport()
        report.opResults = try deleteInBatches("""
            DELETE FROM op_log WHERE ctid IN (
                SELECT ctid FROM op_log WHERE status <> 'deferred' AND received_at < \(cutoffs.opResults) LIMIT \(batchSize))
            """)
        report.tombstones = try deleteInBatches("""
            DELETE FROM records WHERE ctid IN (
                SELECT ctid FROM records WHERE deleted_seq IS NOT NULL AND updated_at < \(cutoffs.tombstones) LIMIT \(batchSize))
            """)
        report.scopeExits = try deleteInBatches("""
            DELETE FROM scope_exits WHERE ctid IN (SELECT ctid FROM scope_exits WHERE exited_at < \(cutoffs.tombstones) LIMIT \(batchSize))
            """)
        report.events = try deleteInBatches("""
            DELETE FROM events WHERE id IN (SELECT id FROM events WHERE created_at < \(cutoffs.events) ORDER BY id LIMIT \(batchSize))
            """)
        report.idempotencyKeys = try deleteInBatches("""
            DELETE FROM idempotency_keys WHERE ctid IN (
                SELECT ctid FROM idempotency_keys WHERE created_at < \(cutoffs.opResults) LIMIT \(batchSize))
            """)
        return report
    }

    /// Repeats a `LIMIT`ed delete, each batch in its own transaction, until it removes nothing.
    private func deleteInBatches(_ statement: PostgresQuery) throws -> Int {
        var total = 0
        while true {
            let deleted = try database.connection { try $0.execute(statement) }
            total += deleted
            if deleted < batchSize { return total }
        }
    }
}
