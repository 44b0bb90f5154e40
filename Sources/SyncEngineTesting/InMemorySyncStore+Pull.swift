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

    func records(
        after position: Int64, visible: [ScopeKey]?, personal: [String], skipTombstonesUpTo start: Int64?, limit: Int
    ) throws -> [PullRow] {
        try state.records.values
            .filter { record in
                record.serverSeq > position && (record.tombstoneSeq ?? .max) > (start ?? -1)
                    && visible.map { !Set($0).isDisjoint(with: Self.seenThrough(record.key, record.scopeKeys, personal)) } ?? true
            }
            .sorted { $0.serverSeq < $1.serverSeq }
            .prefix(limit)
            .map { try Self.row(of: $0) }
    }

    func exits(after position: Int64, keys: [ScopeKey], personal: [String], limit: Int) throws -> [PullRow] {
        let wanted = Set(keys)
        var latest: [RecordKey: Int64] = [:]
        for change in state.changes where change.seq > position {
            let left = Set(Self.seenThrough(change.key, change.scopeKeysBefore, personal)).subtracting(change.scopeKeysAfter)
            if !left.isDisjoint(with: wanted) { latest[change.key] = max(latest[change.key] ?? 0, change.seq) }
        }
        return
            try latest
            .filter { key, _ in state.records[key].map { Set(Self.seenThrough(key, $0.scopeKeys, personal)).isDisjoint(with: wanted) } ?? false }
            .sorted { $0.value < $1.value }
            .prefix(limit)
            .map { key, seq in
                PullRow(
                    seq: seq, key: key, json: try Self.json(Change(collection: key.collection, recordId: key.recordId, serverSeq: seq, type: .remove))
                )
            }
    }

    /// The keys through which a record is seen: only its `user:` keys in a personal collection.
    static func seenThrough(_ key: RecordKey, _ scopeKeys: [ScopeKey], _ personal: [String]) -> [ScopeKey] {
        personal.contains(key.collection) ? scopeKeys.filter { $0.kind == .user } : scopeKeys
    }

    /// A record's change (PROTOCOL.md, Pull): its state with its field metadata apart, or its tombstone.
    static func row(of record: StoredRecord) throws -> PullRow {
        guard let deleted = record.tombstoneSeq else {
            let change = Change(
                collection: record.collection, recordId: record.recordId, serverSeq: record.serverSeq, type: .upsert,
                payload: record.payload, schemaVersion: record.schemaVersion, conflict: record.conflictId.map { Change.ConflictRef(id: $0) })
            return PullRow(seq: record.serverSeq, key: record.key, json: try json(change), fieldMeta: try json(record.fieldMeta))
        }
        let change = Change(
            collection: record.collection, recordId: record.recordId, serverSeq: record.serverSeq, type: .delete,
            tombstone: Change.Tombstone(deletedServerSeq: deleted))
        return PullRow(seq: record.serverSeq, key: record.key, json: try json(change))
    }

    /// The value as JSON text, the same text every time (as PostgreSQL's `jsonb` is).
    static func json(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
