import Postgres
import SyncEngine
import SyncProtocol

/// What a transaction's writes encode to before its sequence numbers are reserved.
///
/// Everything the numbers do not change is encoded from the draft (``SyncTransaction/prepare(_:)``):
/// op bodies, payloads, keys, event audiences and the field metadata around each number. Once
/// the numbers are reserved only the numbered parts are encoded; rows that do not match the
/// draft are encoded in full.
///
/// Rows the transaction read are updated and the others inserted, each kind with one statement:
/// an `INSERT … ON CONFLICT DO UPDATE` would probe every row's key before inserting it, and lock
/// again and compute the generated `change_json` twice for every row it updates.
struct PreparedWrites {
    let newOps: OpLogRow.FixedColumns
    let loggedOps: OpLogRow.FixedColumns
    let newRecords: RecordRow.FixedColumns
    let storedRecords: RecordRow.FixedColumns
    let events: EventOutbox.Headers
    /// What the transaction had read when the draft came; nothing is read after that.
    private let read: ReadRows

    init(_ draft: WriteSet, read: ReadRows) {
        self.read = read
        let ops = read.split(draft.opLog)
        newOps = OpLogRow.FixedColumns(ops.new)
        loggedOps = OpLogRow.FixedColumns(ops.stored)
        let records = read.split(draft.records)
        newRecords = RecordRow.FixedColumns(records.new)
        storedRecords = RecordRow.FixedColumns(records.stored)
        events = Self.eventHeaders(draft)
    }

    /// The outbox headers of `writes`' events, its visit's `device.synced` last.
    private static func eventHeaders(_ writes: WriteSet) -> EventOutbox.Headers {
        let headers = writes.events.map(\.header) + (writes.visit.map { [$0.syncedEvent(.push).header] } ?? [])
        return EventOutbox.Headers(types: headers.map(\.type), audiences: headers.map(\.audience))
    }

    /// The statements writing `writes` (the drafted rows renumbered), and whether they insert
    /// outbox rows (the caller tells the feeds after commit, ``EventOutbox/notifyAfterCommit(on:)``).
    func statements(for writes: WriteSet) throws -> (queries: [PostgresQuery], wroteEvents: Bool) {
        let ops = read.split(writes.opLog)
        let records = read.split(writes.records)
        var statements = try [
            OpLogRow.write(ops.new, fixed: newOps, stored: false), OpLogRow.write(ops.stored, fixed: loggedOps, stored: true),
            RecordRow.write(records.new, fixed: newRecords, stored: false),
            RecordRow.write(records.stored, fixed: storedRecords, stored: true), ScopeExitRow.record(writes.changes),
            ConflictRow.insert(writes.openedConflicts), ConflictRow.update(writes.resolvedConflicts),
        ].compactMap { $0 }
        let data = writes.events.map(\.data) + (writes.visit.map { [$0.syncedEvent(.push).data] } ?? [])
        // A count that differs from the draft's: only the headers are encoded again, not the rows.
        let headers = data.count == events.count ? events : Self.eventHeaders(writes)
        statements += EventOutbox.inserts(headers, data: data)
        if let device = writes.deviceHighWater {
            statements.append("UPDATE devices SET received_through = \(device.highWater) WHERE device_id = \(device.deviceId)")
        }
        if let visit = writes.visit { statements.append(PostgresSyncVisits.stamp(visit)) }
        if writes.recordsVisitOnly {
            // A push whose every op was answered from the op log: nothing it acknowledges is new,
            // so like any visit's bookkeeping its commit need not wait for the WAL flush.
            statements.insert(CommitFlush.skipped, at: 0)
        }
        return (statements, !data.isEmpty)
    }
}

extension OutboxEvent {
    /// The row's type and audience: its scope keys plus `user:<id>` of each named user.
    var header: (type: LiveEventType, audience: [ScopeKey]) {
        (type, Array(Set(audience.scopeKeys + audience.userIds.map(ScopeKey.user))).sorted())
    }
}

extension PendingEvent {
    var header: (type: LiveEventType, audience: [ScopeKey]) { (type, audience) }
}
