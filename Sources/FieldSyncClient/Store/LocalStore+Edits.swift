import Foundation
import SQLite
import SyncProtocol

/// One change the app makes to a record.
struct Edit: Sendable {
    var type: OpType
    var collection: String
    var recordId: String
    /// New values (ignored for a delete).
    var values: [String: JSONValue] = [:]
    /// The review-queue entry this edit settles in the device's favour.
    var resolves: String?
}

extension LocalStore {
    /// The largest op the store accepts: a push body is capped at 1 MiB, and a batch must
    /// always be able to shrink to one op that fits.
    static let maxOpBytes = 512 * 1024

    /// Saves `edit`: the record's view, its op in the outbox and the next clientSeq, in one
    /// transaction. Returns the record as it now shows (nil after a delete).
    /// - Throws: `SyncClientError` when the record does (create) or does not (update,
    ///   delete) exist, or the op is too large; `SQLiteError` when the write fails.
    func save(_ edit: Edit, occurredAt: Date, schemaVersion: Int) async throws -> LocalRecord? {
        try await queue.write { db in
            let current = try RecordRows.localRecord(db, edit.collection, edit.recordId)
            guard let fields = try Self.fieldChanges(edit, current: current) else { return current }
            let op = PushOp(
                opId: "op-" + UUID().uuidString.lowercased(), clientSeq: try Self.nextClientSeq(db), collection: edit.collection,
                recordId: edit.recordId, type: edit.type, entityKey: edit.recordId,
                baseServerSeq: edit.type == .create ? nil : try RecordRows.serverSide(db, edit.collection, edit.recordId)?.seq,
                occurredAt: RFC3339.string(from: occurredAt), fields: edit.type == .delete ? nil : fields,
                dependsOn: try Self.photoDependencies(db, edit.values), resolves: edit.resolves)
            try Self.insert(op, schemaVersion: schemaVersion, into: db)
            try RecordRows.recompute(db, edit.collection, edit.recordId)
            return try RecordRows.localRecord(db, edit.collection, edit.recordId)
        }
    }

    /// The fields of the op: every value for a create, the changed ones (old as shown) for an
    /// update, none for a delete. Nil when an update changes nothing.
    private static func fieldChanges(_ edit: Edit, current: LocalRecord?) throws -> [String: FieldChange]? {
        switch edit.type {
        case .create:
            guard current == nil else { throw SyncClientError.recordExists(collection: edit.collection, id: edit.recordId) }
            return edit.values.mapValues { FieldChange(new: $0) }
        case .update, .delete:
            guard let current else { throw SyncClientError.recordNotFound(collection: edit.collection, id: edit.recordId) }
            guard edit.type == .update else { return [:] }
            let changed = edit.values.filter { name, value in current.fields[name] ?? .null != value }
            guard !changed.isEmpty else { return nil }
            return Dictionary(uniqueKeysWithValues: changed.map { name, value in (name, FieldChange(old: current.fields[name], new: value)) })
        }
    }

    /// The next clientSeq, taken from the counter in the edit's own transaction: a crash
    /// either keeps both the op and the counter or neither, so a number never repeats.
    private static func nextClientSeq(_ db: Database) throws -> Int64 {
        try db.execute("UPDATE device SET last_client_seq = last_client_seq + 1 WHERE id = 1")
        guard let seq = try db.value(Int64.self, "SELECT last_client_seq FROM device WHERE id = 1") else {
            throw SQLiteError(code: .corrupt, message: "the device row is missing")
        }
        return seq
    }

    static func insert(_ op: PushOp, schemaVersion: Int, into db: Database) throws {
        let json = try StoredJSON.text(op)
        guard json.utf8.count <= maxOpBytes else { throw SyncClientError.editTooLarge(bytes: json.utf8.count, limit: maxOpBytes) }
        try db.execute(
            "INSERT INTO outbox (client_seq, op_id, collection, record_id, schema_version, op_json) VALUES (?, ?, ?, ?, ?, ?)",
            [op.clientSeq, op.opId, op.collection, op.recordId, schemaVersion, json])
    }

    /// Photos of this device named anywhere in `values` that are not uploaded yet: the op
    /// goes out with `dependsOn`, and the server holds it until they are finalized.
    private static func photoDependencies(_ db: Database, _ values: [String: JSONValue]) throws -> [String]? {
        var candidates = Set<String>()
        func collect(_ value: JSONValue) {
            switch value {
            case .string(let text) where DeviceIdentifier.isValid(text): candidates.insert(text)
            case .array(let items): items.forEach(collect)
            case .object(let members): members.values.forEach(collect)
            default: break
            }
        }
        values.values.forEach(collect)
        let waiting = try candidates.sorted().filter { id in
            try db.value(Int.self, "SELECT 1 FROM photos WHERE att_id = ? AND state <> 'uploaded'", [id]) != nil
        }
        return waiting.isEmpty ? nil : waiting
    }
}
