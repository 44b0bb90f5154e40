import Foundation
import Postgres
import SyncEngine
import SyncProtocol

/// `op_log` rows.
enum OpLogRow {
    static let columns = """
        device_id, op_id, client_seq, entity_key, collection, record_id, author_id, fingerprint, result::text, pending::text
        """

    static func decode(_ row: PostgresRow) throws -> OpLogEntry {
        let pending = try row.decode(9, as: String?.self)
        return OpLogEntry(
            deviceId: try row.decode(0), opId: try row.decode(1), clientSeq: try row.decode(2), entityKey: try row.decode(3),
            collection: try row.decode(4), recordId: try row.decode(5), authorId: try row.decode(6), fingerprint: try row.decode(7),
            result: try JSONColumn.decodeResult(row.decode(8, as: String.self)),
            pending: try pending.map { try JSONColumn.decode(PendingOp.self, $0) }, op: nil)
    }

    /// The array binds of the columns stand-in sequence numbers never appear in, encodable before
    /// the numbers are reserved.
    struct FixedColumns {
        let opIds: [String]
        let binds: [String?]

        init(_ entries: [OpLogEntry]) {
            opIds = entries.map(\.opId)
            binds = [
                entries.map(\.deviceId).postgresText, opIds.postgresText, entries.map(\.clientSeq).postgresText,
                entries.map(\.entityKey).postgresText, entries.map(\.collection).postgresText, entries.map(\.recordId).postgresText,
                entries.map(\.authorId).postgresText, entries.map(\.status.rawValue).postgresText,
                entries.map { $0.code?.rawValue }.postgresText, entries.map(\.fingerprint).postgresText,
                entries.map { entry in (entry.op ?? entry.pending?.op).map(JSONColumn.encode) }.postgresText,
            ]
        }
    }

    /// The write of `entries`, with `fixed` when it was encoded from these rows; nil when there
    /// are none. `stored` says whether the rows exist (read under the device's lock, so
    /// nothing else writes them): inserted when not, updated when they do.
    static func write(_ entries: [OpLogEntry], fixed: FixedColumns?, stored: Bool) throws -> PostgresQuery? {
        guard !entries.isEmpty else { return nil }
        let fixed = fixed.flatMap { $0.opIds == entries.map(\.opId) ? $0 : nil } ?? FixedColumns(entries)
        let numbered = [
            entries.map { JSONColumn.encode($0.result) }.postgresText, try entries.map { try $0.pending.map(JSONColumn.encode) }.postgresText,
            entries.map(\.result.serverSeq).postgresText,
        ]
        return PostgresQuery(stored ? update : insert, binds: fixed.binds + numbered)
    }

    private static let rows = """
        unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
               $9::text[], $10::text[], $11::jsonb[], $12::jsonb[], $13::jsonb[], $14::bigint[])
        """

    private static let insert = """
        INSERT INTO op_log (device_id, op_id, client_seq, entity_key, collection, record_id, author_id, status, code,
                            fingerprint, body, result, pending, server_seq)
        SELECT * FROM \(rows)
        """

    private static let update = """
        UPDATE op_log SET
            status = t.status, code = t.code, result = t.result, pending = t.pending, body = coalesce(t.body, op_log.body),
            server_seq = t.server_seq, decided_at = now()
        FROM \(rows) AS t(device_id, op_id, client_seq, entity_key, collection, record_id, author_id, status, code,
                          fingerprint, body, result, pending, server_seq)
        WHERE op_log.device_id = t.device_id AND op_log.op_id = t.op_id
        """
}

/// `records` rows; `xid` (the writing transaction, docs/decisions/0004) is the column's default.
enum RecordRow {
    static let columns = """
        collection, record_id, payload::text, field_meta, server_seq, deleted_seq, conflict_id, schema_version,
        created_at, updated_at
        """

    /// Decodes `columns`, starting at column `offset` of the row.
    static func decode(_ row: PostgresRow, offset: Int) throws -> StoredRecord {
        StoredRecord(
            collection: try row.decode(offset), recordId: try row.decode(offset + 1),
            payload: try JSONColumn.decodePayload(row.decode(offset + 2, as: String.self)),
            fieldMeta: try JSONColumn.decodeFieldMeta(row.decode(offset + 3, as: String.self)),
            serverSeq: try row.decode(offset + 4), tombstoneSeq: try row.decode(offset + 5), conflictId: try row.decode(offset + 6),
            schemaVersion: try row.decode(offset + 7), createdAt: RFC3339.string(from: try row.decode(offset + 8, as: Date.self)),
            updatedAt: RFC3339.string(from: try row.decode(offset + 9, as: Date.self)))
    }

    static func decode(_ row: PostgresRow) throws -> StoredRecord {
        try decode(row, offset: 0)
    }

    /// The array binds of the columns stand-in sequence numbers never appear in, and the field
    /// metadata up to each number, encodable before the numbers are reserved.
    struct FixedColumns {
        let keys: [RecordKey]
        let binds: [String?]
        let fieldMeta: FieldMetaColumn

        init(_ records: [StoredRecord]) {
            keys = records.map(\.key)
            let scopes = records.map { ScopeColumns(keys: $0.scopeKeys) }
            binds = [
                records.map(\.collection).postgresText, records.map(\.recordId).postgresText,
                records.map { JSONColumn.encode($0.payload) }.postgresText, scopes.map(\.user).postgresText, scopes.map(\.team).postgresText,
                records.map(\.conflictId).postgresText, records.map(\.schemaVersion).postgresText,
            ]
            fieldMeta = FieldMetaColumn(records)
        }
    }

    /// The write of `records`, with `fixed` when it was encoded from these rows; nil when there
    /// are none. `stored` says whether the rows exist (read and locked by the transaction; absent
    /// ones are covered by its advisory locks): inserted when not, updated when they do.
    static func write(_ records: [StoredRecord], fixed: FixedColumns?, stored: Bool) -> PostgresQuery? {
        guard !records.isEmpty else { return nil }
        let (columns, fieldMeta) = filled(fixed, with: records)
        let numbered = [fieldMeta, records.map(\.serverSeq).postgresText, records.map(\.tombstoneSeq).postgresText]
        return PostgresQuery(stored ? update : insert, binds: columns.binds + numbered)
    }

    private static let rows = """
        unnest($1::text[], $2::text[], $3::jsonb[], $4::text[], $5::text[], $6::text[], $7::int[],
               $8::text[], $9::bigint[], $10::bigint[])
        """

    private static let insert = """
        INSERT INTO records (collection, record_id, payload, user_scope, team_scope, conflict_id, schema_version,
                             field_meta, server_seq, deleted_seq)
        SELECT * FROM \(rows)
        """

    private static let update = """
        UPDATE records SET
            payload = t.payload, field_meta = t.field_meta, server_seq = t.server_seq, xid = DEFAULT,
            user_scope = t.user_scope, team_scope = t.team_scope, deleted_seq = t.deleted_seq,
            conflict_id = t.conflict_id, schema_version = t.schema_version, updated_at = now()
        FROM \(rows) AS t(collection, record_id, payload, user_scope, team_scope, conflict_id, schema_version,
                          field_meta, server_seq, deleted_seq)
        WHERE records.collection = t.collection AND records.record_id = t.record_id
        """
}

extension RecordRow {
    /// `fixed` and its field metadata filled in from `records` when it was encoded from these
    /// rows, else both encoded from `records` now.
    private static func filled(_ fixed: FixedColumns?, with records: [StoredRecord]) -> (FixedColumns, fieldMeta: String?) {
        if let fixed, fixed.keys == records.map(\.key), let fieldMeta = fixed.fieldMeta.filled(with: records) { return (fixed, fieldMeta) }
        let fresh = FixedColumns(records)
        return (fresh, fresh.fieldMeta.filled(with: records))
    }
}

/// A record's scope keys as the two indexed columns (`user:<id>` and `team:<id>`).
struct ScopeColumns {
    var user: String?
    var team: String?

    init(keys: [ScopeKey]) {
        user = keys.first { $0.kind == .user }?.rawValue
        team = keys.first { $0.kind == .team }?.rawValue
    }
}

/// `scope_exits` rows: a change that moved a record out of some scope keys. The record is locked
/// by the writing transaction, so a new exit is always later than the one it replaces.
enum ScopeExitRow {
    /// The upsert of the exits `changes` make; nil when they make none.
    static func record(_ changes: [ChangeLogEntry]) -> PostgresQuery? {
        var keys: [String] = []
        var collections: [String] = []
        var recordIds: [String] = []
        var seqs: [Int64] = []
        for change in changes {
            for key in Set(change.scopeKeysBefore).subtracting(change.scopeKeysAfter) {
                keys.append(key.rawValue)
                collections.append(change.collection)
                recordIds.append(change.recordId)
                seqs.append(change.seq)
            }
        }
        guard !keys.isEmpty else { return nil }
        return """
            INSERT INTO scope_exits (scope_key, collection, record_id, seq)
            SELECT * FROM unnest(\(keys)::text[], \(collections)::text[], \(recordIds)::text[], \(seqs)::bigint[])
            ON CONFLICT (scope_key, collection, record_id) DO UPDATE SET seq = excluded.seq, xid = excluded.xid, exited_at = now()
            """
    }
}

/// `conflicts` rows.
enum ConflictRow {
    /// The insert of newly opened `conflicts`; nil when there are none.
    static func insert(_ conflicts: [StoredConflict]) throws -> PostgresQuery? {
        guard !conflicts.isEmpty else { return nil }
        let entries = conflicts.map(\.entry)
        return """
            INSERT INTO conflicts (id, collection, record_id, author_id, device_id, state, scope_keys, entry)
            SELECT id, collection, record_id, author_id, device_id, state,
                   ARRAY(SELECT jsonb_array_elements_text(keys)), entry
            FROM unnest(\(entries.map(\.id))::text[], \(entries.map(\.collection))::text[], \(entries.map(\.recordId))::text[],
                        \(entries.map(\.authorId))::text[], \(entries.map(\.deviceId))::text[], \(entries.map(\.state.rawValue))::text[],
                        \(try conflicts.map { try JSONColumn.encode($0.scopeKeys) })::jsonb[],
                        \(try entries.map(JSONColumn.encode))::jsonb[])
                AS t(id, collection, record_id, author_id, device_id, state, keys, entry)
            """
    }

    /// The update of `entries` that changed state; nil when there are none.
    static func update(_ entries: [ConflictEntry]) throws -> PostgresQuery? {
        guard !entries.isEmpty else { return nil }
        return """
            UPDATE conflicts SET state = t.state, entry = t.entry
            FROM unnest(\(entries.map(\.id))::text[], \(entries.map(\.state.rawValue))::text[],
                        \(try entries.map(JSONColumn.encode))::jsonb[]) AS t(id, state, entry)
            WHERE conflicts.id = t.id
            """
    }
}
