import Postgres
import SyncEngine
import SyncProtocol

/// What a transaction's writes encode to before its sequence numbers are reserved.
///
/// Everything the numbers do not change is encoded from the draft (``SyncTransaction/prepare(_:)``):
/// op bodies, payloads, keys, event audiences and the field metadata around each number. Once
/// the numbers are reserved only the numbered parts are encoded; rows that do not match the
/// draft are encoded in full.
struct PreparedWrites {
    let opLog: OpLogRow.FixedColumns
    let records: RecordRow.FixedColumns
    let events: EventOutbox.Headers

    init(_ draft: WriteSet) {
        opLog = OpLogRow.FixedColumns(draft.opLog)
        records = RecordRow.FixedColumns(draft.records)
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
        var statements = try [
            OpLogRow.upsert(writes.opLog, fixed: opLog), RecordRow.upsert(writes.records, fixed: records),
            ScopeExitRow.record(writes.changes), ConflictRow.insert(writes.openedConflicts), ConflictRow.update(writes.resolvedConflicts),
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
