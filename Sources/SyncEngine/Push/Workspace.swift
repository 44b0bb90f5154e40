import Foundation
import SyncProtocol

/// The in-memory state of one transaction: loaded records and conflicts, mutated op by op
/// (so later ops see earlier ops' effects), and the writes collected on the way.
///
/// Sequence numbers handed out here are stand-ins (``ProvisionalSequence``); ``draft`` carries
/// them to `SyncTransaction.number(_:changes:)`, which replaces them with reserved ones.
struct Workspace {
    let schema: Schema
    /// RFC 3339 server time of this transaction.
    let timestamp: String
    let makeId: @Sendable () -> String
    private(set) var records: [RecordKey: StoredRecord]
    private(set) var conflicts: [String: StoredConflict]
    private var touched: Set<RecordKey> = []
    /// Records loaded at an older schema version, upgraded in memory (written only when a change writes them).
    private var upgraded: Set<RecordKey> = []
    private var writes = WriteSet()
    private var sequence = ProvisionalSequence()

    init(schema: Schema, now: Date, makeId: @escaping @Sendable () -> String, records: [StoredRecord], conflicts: [StoredConflict]) {
        self.schema = schema
        self.timestamp = RFC3339.string(from: now)
        self.makeId = makeId
        // Rule 5 for stored records: whatever changes a record next sees, and writes, the current version.
        var loaded: [RecordKey: StoredRecord] = [:]
        for record in records where loaded[record.key] == nil {
            if let current = schema.upgraded(record) {
                loaded[record.key] = current
                upgraded.insert(record.key)
            } else {
                loaded[record.key] = record
            }
        }
        self.records = loaded
        self.conflicts = Dictionary(conflicts.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// How many changes (sequence numbers) the transaction needs.
    var changeCount: Int { sequence.count }

    /// Adds an op log row to the write set.
    mutating func log(_ entry: OpLogEntry) { writes.opLog.append(entry) }

    mutating func setHighWater(_ highWater: DeviceHighWater) { writes.deviceHighWater = highWater }

    /// Records the sync call this transaction belongs to.
    mutating func record(_ visit: SyncVisit) { writes.visit = visit }

    /// The collected writes, each touched record once in key order, still with stand-in numbers.
    var draft: WriteSet {
        var draft = writes
        draft.records = touched.sorted().compactMap { records[$0] }
        return draft
    }

    // MARK: - Rules 7 and 8

    /// Decides and applies one validated op against the current record.
    mutating func apply(_ op: ValidatedOp) -> OpResult {
        do {
            return try decide(op)
        } catch {
            return error.result(for: op.op)
        }
    }

    private mutating func decide(_ op: ValidatedOp) throws(OpFailure) -> OpResult {
        let current = records[op.key]
        if let tombstone = current?.tombstoneSeq {
            throw OpFailure(code: .recordDeleted, message: "\(op.key) was deleted", tombstoneSeq: tombstone)
        }
        switch (op.op.type, current) {
        case (.create, let current?):
            throw .conflict(
                .recordExists, "\(op.key) already exists",
                details: ["serverPayload": .object(current.payload), "serverSeq": .int(current.serverSeq)])
        case (.create, nil):
            return create(op)
        case (_, nil):
            throw .rejected(.recordNotFound, "\(op.key) does not exist")
        case (let type, let current?):
            if op.collection.lock?.matches(current.payload) == true { throw .rejected(.recordLocked, "\(op.key) is locked") }
            if type == .delete { return delete(op, current) }
            try TransitionRule.check(op, current: current)
            return update(op, current)
        }
    }

    private mutating func create(_ op: ValidatedOp) -> OpResult {
        let seq = sequence.next()
        let payload = op.collection.createdPayload(from: op.fields, author: op.author)
        let meta = FieldMeta(seq: seq, opId: op.op.opId, deviceId: op.author.deviceId)
        var record = StoredRecord(
            collection: op.op.collection, recordId: op.op.recordId, payload: payload, fieldMeta: payload.mapValues { _ in meta },
            serverSeq: seq, schemaVersion: schema.version, createdAt: timestamp, updatedAt: timestamp)
        closeResolvedConflict(op, record: &record, seq: seq)
        commit(record, before: nil, seq: seq, type: .upsert, author: op.author)
        return OpResult(opId: op.op.opId, status: .applied, serverSeq: seq, recordId: op.op.recordId)
    }

    private mutating func delete(_ op: ValidatedOp, _ current: StoredRecord) -> OpResult {
        let seq = sequence.next()
        var record = current
        record.tombstoneSeq = seq
        closeResolvedConflict(op, record: &record, seq: seq)
        commit(record, before: current, seq: seq, type: .delete, author: op.author)
        return OpResult(opId: op.op.opId, status: .applied, serverSeq: seq, recordId: op.op.recordId)
    }

    private mutating func update(_ op: ValidatedOp, _ current: StoredRecord) -> OpResult {
        let merge = FieldMerge(op: op, current: current)
        if op.collection.policy == .manual, !merge.conflicts.isEmpty { return review(op, current, merge.conflicts) }
        let opensEntry = merge.needsReview(op.collection)
        guard !merge.merged.isEmpty || opensEntry else { return fieldConflict(op, merge, serverSeq: nil, conflictId: nil) }
        let seq = sequence.next()
        var record = current
        let meta = FieldMeta(seq: seq, opId: op.op.opId, deviceId: op.author.deviceId)
        for (name, value) in merge.merged {
            record.payload[name] = value.isNull ? nil : value
            record.fieldMeta[name] = meta
        }
        let conflictId = opensEntry ? openConflict(op, record: record, fields: merge.serverKept) : nil
        if let conflictId { record.conflictId = conflictId }
        if merge.serverKept.isEmpty { closeResolvedConflict(op, record: &record, seq: seq) }
        commit(record, before: current, seq: seq, type: .upsert, author: op.author)
        guard merge.serverKept.isEmpty else {
            return fieldConflict(op, merge, serverSeq: merge.merged.isEmpty ? nil : seq, conflictId: conflictId)
        }
        return OpResult(
            opId: op.op.opId, status: .applied, serverSeq: seq, recordId: op.op.recordId,
            conflicts: merge.conflicts.isEmpty ? nil : merge.conflicts)
    }

    private func fieldConflict(_ op: ValidatedOp, _ merge: FieldMerge, serverSeq: Int64?, conflictId: String?) -> OpResult {
        OpResult(
            opId: op.op.opId, status: .conflict, code: .fieldConflict, message: "the server kept overlapping fields",
            serverSeq: serverSeq, recordId: op.op.recordId, conflicts: merge.conflicts, appliedFields: merge.merged.keys.sorted(),
            conflictId: conflictId)
    }

    /// Policy `manual`: nothing applies; the record is flagged (a new change) and an entry opens.
    private mutating func review(_ op: ValidatedOp, _ current: StoredRecord, _ conflicts: [FieldConflict]) -> OpResult {
        let conflictId = openConflict(op, record: current, fields: conflicts)
        var record = current
        record.conflictId = conflictId
        commit(record, before: current, seq: sequence.next(), type: .upsert, author: op.author)
        let lost = conflicts.map { conflict in
            var copy = conflict
            copy.winner = .server
            return copy
        }
        return OpResult(
            opId: op.op.opId, status: .conflict, code: .reviewRequired, message: "both revisions review",
            recordId: op.op.recordId, conflicts: lost, conflictId: conflictId)
    }

    // MARK: - Effects

    /// Stores a record's new state and its change log row and events.
    mutating func commit(_ record: StoredRecord, before: StoredRecord?, seq: Int64, type: ChangeType, author: Principal) {
        let record = store(record, before: before, seq: seq, type: type)
        let keysBefore = before?.scopeKeys ?? []
        let audience = EventAudience(scopeKeys: Set(keysBefore + record.scopeKeys).sorted(), userIds: [author.userId])
        writes.events.append(
            OutboxEvent(type: .recordChanged, collection: record.collection, recordId: record.recordId, serverSeq: seq, audience: audience))
        if let event = OrderEvents.event(before: before, after: record, seq: seq, audience: audience) { writes.events.append(event) }
    }

    /// Stores a record's new state and its change log row. A field without metadata (one a
    /// schema upgrade added) is stamped as set by this change, on the server.
    private mutating func store(_ record: StoredRecord, before: StoredRecord?, seq: Int64, type: ChangeType) -> StoredRecord {
        var record = record
        record.serverSeq = seq
        record.updatedAt = timestamp
        for name in record.payload.keys where record.fieldMeta[name] == nil { record.fieldMeta[name] = FieldMeta(seq: seq) }
        records[record.key] = record
        touched.insert(record.key)
        writes.changes.append(
            ChangeLogEntry(
                seq: seq, collection: record.collection, recordId: record.recordId, type: type,
                scopeKeysBefore: before?.scopeKeys ?? [], scopeKeysAfter: record.scopeKeys))
        return record
    }

    /// Writes every record upgraded on load that nothing else wrote as a change of its own,
    /// attributed to the server. No live event announces it: a schema upgrade rewrites every
    /// record at once, and as many events would swamp each stream; devices pull the changes.
    /// - Returns: how many records it wrote.
    mutating func commitUpgrades() -> Int {
        let pending = upgraded.subtracting(touched).sorted()
        for key in pending {
            guard let record = records[key] else { continue }
            _ = store(record, before: record, seq: sequence.next(), type: .upsert)
        }
        return pending.count
    }

    /// Opens a conflict entry for `op` against `record` (the server's revision) and returns its id.
    private mutating func openConflict(_ op: ValidatedOp, record: StoredRecord, fields: [FieldConflict]) -> String {
        let entry = ConflictEntry(
            id: makeId(), collection: record.collection, recordId: record.recordId, opId: op.op.opId, deviceId: op.author.deviceId,
            authorId: op.author.userId, state: .open, openedAt: timestamp,
            fields: fields.map {
                FieldConflict(
                    field: $0.field, clientOld: $0.clientOld, clientNew: $0.clientNew, serverCurrent: $0.serverCurrent, serverSeq: $0.serverSeq)
            },
            deviceRevision: record.payload.overlaid(with: op.fields), serverRevision: record.payload)
        let stored = StoredConflict(entry: entry, scopeKeys: record.scopeKeys)
        conflicts[entry.id] = stored
        writes.openedConflicts.append(stored)
        emitConflictEvent(.conflictOpened, stored, author: op.author)
        return entry.id
    }

    /// Settles the entry an applied op `resolves`, in the device's favour.
    private mutating func closeResolvedConflict(_ op: ValidatedOp, record: inout StoredRecord, seq: Int64) {
        guard let id = op.resolving?.id else { return }
        close(id, choice: .device, by: op.author, seq: seq, record: &record)
    }

    /// Marks an open entry resolved, clears the record's flag and announces it.
    mutating func close(_ id: String, choice: ResolutionChoice, by principal: Principal, seq: Int64, record: inout StoredRecord) {
        guard var conflict = conflicts[id], conflict.entry.state == .open else { return }
        conflict.entry.state = .resolved
        conflict.entry.resolution = ConflictEntry.Resolution(choice: choice, by: principal.userId, at: timestamp, serverSeq: seq)
        conflicts[id] = conflict
        if record.conflictId == id { record.conflictId = nil }
        writes.resolvedConflicts.append(conflict.entry)
        emitConflictEvent(.conflictResolved, conflict, author: principal)
    }

    private mutating func emitConflictEvent(_ type: LiveEventType, _ conflict: StoredConflict, author: Principal) {
        let audience = EventAudience(scopeKeys: conflict.scopeKeys, userIds: Set([conflict.entry.authorId, author.userId]).sorted())
        writes.events.append(
            OutboxEvent(
                type: type, collection: conflict.entry.collection, recordId: conflict.entry.recordId, conflictId: conflict.id, audience: audience))
    }

    /// A stand-in sequence number for a change made outside ``apply(_:)`` (server changes).
    mutating func nextSeq() -> Int64 { sequence.next() }
}
