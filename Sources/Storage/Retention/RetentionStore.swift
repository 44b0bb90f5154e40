import Foundation
import Postgres

/// What one retention pass removed.
public struct RetentionReport: Sendable, Equatable, CustomStringConvertible {
    public var opResults = 0
    public var tombstones = 0
    public var scopeExits = 0
    public var events = 0
    public var idempotencyKeys = 0

    public init() {}

    public var total: Int { opResults + tombstones + scopeExits + events + idempotencyKeys }

    public var description: String {
        "op results \(opResults), tombstones \(tombstones), scope exits \(scopeExits), events \(events), "
            + "idempotency keys \(idempotencyKeys)"
    }
}

/// Deletes what the retention settings no longer require, in small batches so no
/// statement holds locks for long.
///
/// - Op results (not deferred ones: those still wait to apply) older than `opResultRetentionDays`.
/// - Tombstones, and scope exits, older than `tombstoneRetentionDays` (at least 30: cursors
///   live 30 days, and a device must still learn of every delete it could have missed).
/// - Outbox events older than a day (the live feed replays 5 minutes).
/// - Idempotency keys of requests (orders) older than the op-result retention, like op results.
public struct RetentionStore: Sendable {
    let database: PostgresClient
    let batchSize: Int

    public init(database: PostgresClient, batchSize: Int = 5_000) {
        self.database = database
        self.batchSize = batchSize
    }

    /// Runs one pass; returns how many rows each rule removed.
    public func purge(_ settings: ServerSettings, now: Date = Date()) throws -> RetentionReport {
        let opCutoff = now.addingTimeInterval(-Double(max(settings.opResultRetentionDays, 30)) * 86_400)
        let tombstoneCutoff = now.addingTimeInterval(-Double(max(settings.tombstoneRetentionDays, 30)) * 86_400)
        let eventCutoff = now.addingTimeInterval(-86_400)
        var report = RetentionReport()
        report.opResults = try deleteInBatches("""
            DELETE FROM op_log WHERE ctid IN (
                SELECT ctid FROM op_log WHERE status <> 'deferred' AND received_at < \(opCutoff) LIMIT \(batchSize))
            """)
        report.tombstones = try deleteInBatches("""
            DELETE FROM records WHERE ctid IN (
                SELECT ctid FROM records WHERE deleted_seq IS NOT NULL AND updated_at < \(tombstoneCutoff) LIMIT \(batchSize))
            """)
        report.scopeExits = try deleteInBatches("""
            DELETE FROM scope_exits WHERE ctid IN (SELECT ctid FROM scope_exits WHERE exited_at < \(tombstoneCutoff) LIMIT \(batchSize))
            """)
        report.events = try deleteInBatches("""
            DELETE FROM events WHERE id IN (SELECT id FROM events WHERE created_at < \(eventCutoff) ORDER BY id LIMIT \(batchSize))
            """)
        report.idempotencyKeys = try deleteInBatches("""
            DELETE FROM idempotency_keys WHERE ctid IN (
                SELECT ctid FROM idempotency_keys WHERE created_at < \(opCutoff) LIMIT \(batchSize))
            """)
        return report
    }

    /// Repeats a `LIMIT`ed delete, each batch in its own transaction, until it removes nothing.
    private func deleteInBatches(_ statement: PostgresQuery) throws -> Int {
        var total = 0
        while true {
            let deleted = try database.withConnection { try $0.execute(statement) }
            total += deleted
            if deleted < batchSize { return total }
        }
    }
}
