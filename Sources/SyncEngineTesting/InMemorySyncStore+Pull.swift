import Foundation
public import SyncEngine
import SyncProtocol

/// Pulls read the committed state, as `PostgresPullReader` reads the records and `scope_exits`.
extension InMemorySyncStore: PullReader {
    public func snapshot<T>(_ body: (any PullSnapshot) throws -> T) throws -> T {
        try body(InMemoryPullSnapshot(state: state))
    }
}

/// The reads of one pull on a copy of the committed state.
struct InMemoryPullSnapshot: PullSnapshot {
    let state: InMemorySyncStore.State

    func latestSequence() throws -> Int64 { state.sequence }

    func horizon() throws -> Int64 { state.lastTransaction + 1 }

    func records(
        after position: PullPosition, below horizon: Int64, visible: [ScopeKey]?, personal: [String],
        skipTombstonesUpTo start: PullPosition?, limit: Int
    ) throws -> [PullRow] {
        try state.records.values
            .map { record in (record, PullPosition(xid: state.recordTransactions[record.key] ?? 0, seq: record.serverSeq)) }
            .filter { record, at in
                at > position && at.xid < horizon && (record.tombstoneSeq == nil || start.map { at > $0 } ?? true)
                    && visible.map { !Set($0).isDisjoint(with: Self.seenThrough(record.key, record.scopeKeys, personal)) } ?? true
            }
            .sorted { $0.1 < $1.1 }
            .prefix(limit)
            .map { record, at in try Self.row(of: record, xid: at.xid) }
    }

    func exits(after position: PullPosition, below horizon: Int64, keys: [ScopeKey], personal: [String], limit: Int) throws -> [PullRow] {
        let wanted = Set(keys)
        var latest: [RecordKey: PullPosition] = [:]
        for (change, transaction) in zip(state.changes, state.changeTransactions) {
            let at = PullPosition(xid: transaction, seq: change.seq)
            guard at > position, transaction < horizon else { continue }
            let left = Set(Self.seenThrough(change.key, change.scopeKeysBefore, personal)).subtracting(change.scopeKeysAfter)
            if !left.isDisjoint(with: wanted) { latest[change.key] = max(latest[change.key] ?? .start, at) }
        }
        return
            try latest
            .filter { key, _ in state.records[key].map { Set(Self.seenThrough(key, $0.scopeKeys, personal)).isDisjoint(with: wanted) } ?? false }
            .sorted { $0.value < $1.value }
            .prefix(limit)
            .map { key, at in
                PullRow(
                    seq: at.seq, xid: at.xid, key: key,
                    json: try Self.json(Change(collection: key.collection, recordId: key.recordId, serverSeq: at.seq, type: .remove)))
            }
    }

    /// The keys through which a record is seen: only its `user:` keys in a personal collection.
    static func seenThrough(_ key: RecordKey, _ scopeKeys: [ScopeKey], _ personal: [String]) -> [ScopeKey] {
        personal.contains(key.collection) ? scopeKeys.filter { $0.kind == .user } : scopeKeys
    }

    /// A record's change (PROTOCOL.md, Pull): its state with its field metadata apart, or its tombstone.
    static func row(of record: StoredRecord, xid: Int64) throws -> PullRow {
        guard let deleted = record.tombstoneSeq else {
            let change = Change(
                collection: record.collection, recordId: record.recordId, serverSeq: record.serverSeq, type: .upsert,
                payload: record.payload, schemaVersion: record.schemaVersion, conflict: record.conflictId.map { Change.ConflictRef(id: $0) })
            return PullRow(seq: record.serverSeq, xid: xid, key: record.key, json: try json(change), fieldMeta: try json(record.fieldMeta))
        }
        let change = Change(
            collection: record.collection, recordId: record.recordId, serverSeq: record.serverSeq, type: .delete,
            tombstone: Change.Tombstone(deletedServerSeq: deleted))
        return PullRow(seq: record.serverSeq, xid: xid, key: record.key, json: try json(change))
    }

    /// The value as JSON text, the same text every time (as PostgreSQL's `jsonb` is).
    static func json(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
