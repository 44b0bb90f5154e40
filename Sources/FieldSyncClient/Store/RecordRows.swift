import Foundation
import SQLite
import SyncProtocol

/// The `records` table inside a transaction: the server's side of a record, and the view
/// recomputed from it and the outbox whenever either changes.
enum RecordRows {
    typealias Fields = [String: JSONValue]

    /// The server's side of one record as stored.
    struct ServerSide {
        var fields: Fields?
        var seq: Int64?
        var deletedSeq: Int64?
        var conflictId: String?
        var syncedAt: Date?

        /// The newest sequence number this side reflects.
        var newestSeq: Int64 { max(seq ?? 0, deletedSeq ?? 0) }
    }

    static func serverSide(_ db: Database, _ collection: String, _ recordId: String) throws -> ServerSide? {
        guard
            let row = try db.row(
                "SELECT server_fields, server_seq, deleted_seq, conflict_id, synced_at FROM records WHERE collection = ? AND record_id = ?",
                [collection, recordId])
        else { return nil }
        return ServerSide(
            fields: try StoredJSON.decode(Fields.self, row, "server_fields"), seq: try row.decode("server_seq"),
            deletedSeq: try row.decode("deleted_seq"), conflictId: try row.decode("conflict_id"),
            syncedAt: try row.decode("synced_at", as: Double?.self).map(Date.init(timeIntervalSince1970:)))
    }

    /// Replaces the server's side of a record (creating the row), marking it seen by a
    /// re-download, then recomputes its view.
    static func setServerSide(_ db: Database, _ collection: String, _ recordId: String, _ side: ServerSide) throws {
        try db.execute(
            """
            INSERT INTO records (collection, record_id, server_fields, server_seq, deleted_seq, conflict_id, synced_at, resync_seen)
            VALUES (?, ?, ?, ?, ?, ?, ?, 1)
            ON CONFLICT (collection, record_id) DO UPDATE SET server_fields = excluded.server_fields,
                server_seq = excluded.server_seq, deleted_seq = excluded.deleted_seq, conflict_id = excluded.conflict_id,
                synced_at = excluded.synced_at, resync_seen = 1
            """,
            [
                collection, recordId, try side.fields.map(StoredJSON.text), side.seq, side.deletedSeq, side.conflictId,
                side.syncedAt?.timeIntervalSince1970,
            ])
        try recompute(db, collection, recordId)
    }

    /// The record's unacknowledged ops, oldest first.
    static func pendingOps(_ db: Database, _ collection: String, _ recordId: String) throws -> [PushOp] {
        try db.values(String.self, "SELECT op_json FROM outbox WHERE collection = ? AND record_id = ? ORDER BY client_seq", [collection, recordId])
            .map { try StoredJSON.decode(PushOp.self, $0) }
    }

    /// Writes the record's view (server side plus pending ops); a row left with nothing to
    /// show, no server side and no issue is removed.
    static func recompute(_ db: Database, _ collection: String, _ recordId: String) throws {
        let side = try serverSide(db, collection, recordId)
        let view = RecordOverlay.view(server: side?.fields, pending: try pendingOps(db, collection, recordId))
        if view == nil, side?.fields == nil, side?.deletedSeq == nil,
            try db.value(Int.self, "SELECT 1 FROM issues WHERE collection = ? AND record_id = ?", [collection, recordId]) == nil
        {
            try db.execute("DELETE FROM records WHERE collection = ? AND record_id = ?", [collection, recordId])
            return
        }
        try db.execute(
            """
            INSERT INTO records (collection, record_id, fields) VALUES (?, ?, ?)
            ON CONFLICT (collection, record_id) DO UPDATE SET fields = excluded.fields
            """, [collection, recordId, try view.map(StoredJSON.text)])
    }

    /// The record as the app sees it; nil when it is not visible.
    static func localRecord(_ db: Database, _ collection: String, _ recordId: String) throws -> LocalRecord? {
        try db.row(visibleRecords + " AND r.record_id = ?", [collection, recordId]).map(localRecord)
    }

    /// Every visible record of `collection`, by id.
    static func localRecords(_ db: Database, _ collection: String) throws -> [LocalRecord] {
        try db.rows(visibleRecords + " ORDER BY r.record_id", [collection]).map(localRecord)
    }

    /// The visible records of one collection (`?`), each with its count of queued ops.
    private static let visibleRecords = """
        SELECT r.collection, r.record_id, r.fields, r.server_seq, r.conflict_id,
               (SELECT count(*) FROM outbox o WHERE o.collection = r.collection AND o.record_id = r.record_id) AS pending
        FROM records r WHERE r.collection = ? AND r.fields IS NOT NULL
        """

    private static func localRecord(_ row: Row) throws -> LocalRecord {
        LocalRecord(
            collection: try row.decode("collection"), id: try row.decode("record_id"),
            fields: try StoredJSON.decode(Fields.self, row, "fields") ?? [:], serverSeq: try row.decode("server_seq"),
            pendingChanges: try row.decode("pending"), openConflictId: try row.decode("conflict_id"))
    }
}
