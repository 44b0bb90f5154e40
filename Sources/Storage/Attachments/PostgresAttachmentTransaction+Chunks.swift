import Foundation
import Postgres
import SyncEngine

extension PostgresAttachmentTransaction {
    // MARK: - Chunks

    /// The chunks a session holds, by ascending index.
    func chunks(of session: UUID) throws -> [StoredChunk] {
        try connection.query(
            """
            SELECT chunk_index, sha256 FROM attachment_chunks WHERE attachment_id = \(session) ORDER BY chunk_index
            """
        ).map { StoredChunk(index: try $0.decode("chunk_index"), sha256: try $0.decode("sha256")) }
    }

    /// Records chunk `index` of an open session (a re-sent chunk replaces the earlier row) and
    /// moves the session's expiry `hours` ahead, in one statement. The plain `UPDATE` takes
    /// `FOR NO KEY UPDATE`, which other chunk writers' `FOR KEY SHARE` does not block.
    func recordChunk(_ index: Int, of session: UUID, sha256: String, size: Int, hours: Int) throws {
        try connection.execute(
            """
            WITH recorded AS (
                INSERT INTO attachment_chunks (attachment_id, chunk_index, sha256, size) VALUES (\(session), \(index), \(sha256), \(size))
                ON CONFLICT (attachment_id, chunk_index) DO UPDATE SET sha256 = excluded.sha256, size = excluded.size, received_at = now()
            )
            UPDATE attachments SET last_activity_at = now(), expires_at = now() + make_interval(hours => \(hours)) WHERE id = \(session)
            """)
    }

    func forgetChunks(_ indexes: [Int], of session: UUID) throws {
        try connection.execute(
            """
            DELETE FROM attachment_chunks WHERE attachment_id = \(session) AND chunk_index = ANY(\(indexes)::int[])
            """)
    }

    // MARK: - Blobs and completion

    /// The size of a stored blob, or nil when no finalized upload has these bytes.
    func blobSize(_ sha256: String) throws -> Int64? {
        try connection.query("SELECT size FROM blobs WHERE sha256 = \(sha256)").first?.decode("size", as: Int64.self)
    }

    /// Records a blob whose bytes are durable in the blob store (a second upload of the same
    /// bytes keeps the first row).
    func recordBlob(_ sha256: String, size: Int64, contentType: String) throws {
        try connection.execute(
            """
            INSERT INTO blobs (sha256, size, content_type) VALUES (\(sha256), \(size), \(contentType)) ON CONFLICT (sha256) DO NOTHING
            """)
    }

    /// Marks an open session complete and bound to its blob; its chunk rows go.
    func complete(_ session: UUID, blob sha256: String) throws -> UploadSession {
        try connection.execute("DELETE FROM attachment_chunks WHERE attachment_id = \(session)")
        return try SessionRow.decode(
            connection.query(
                """
                UPDATE attachments SET status = 'complete', blob_sha256 = \(sha256), expires_at = NULL, completed_at = now(),
                                       last_activity_at = now()
                WHERE id = \(session) RETURNING \(unescaped: SessionRow.columns)
                """)[0])
    }

    // MARK: - Downloads

    /// Every attachment named `attId` (one per device that chose the name), the caller's own
    /// device first, then by age, each with its record's scope keys (nil: no record yet).
    func attachments(holding sha256: String, userId: String, visible: [ScopeKey]?, limit: Int) throws -> [(UploadSession, [ScopeKey]?)] {
        let keys = visible.map { $0.map(\.rawValue) }
        return try connection.query(
            """
            SELECT \(unescaped: SessionRow.qualifiedColumns("a")), r.user_scope, r.team_scope, (r.record_id IS NOT NULL) AS record_exists
            FROM attachments a LEFT JOIN records r ON r.collection = a.collection AND r.record_id = a.record_id
            WHERE a.blob_sha256 = \(sha256) AND a.status = 'complete'
              AND (a.user_id = \(userId) OR \(keys)::text[] IS NULL OR ARRAY[r.user_scope, r.team_scope] && \(keys)::text[])
            ORDER BY (a.user_id = \(userId)) DESC, a.created_at, a.id
            LIMIT \(limit)
            """
        ).map { row in
            (try SessionRow.decode(row), try row.decode("record_exists", as: Bool.self) ? try RecordScope.keys(row) : nil)
        }
    }

    func attachments(named attId: String, of record: RecordKey?, preferring deviceId: String) throws -> [(UploadSession, [ScopeKey]?)] {
        try connection.query(
            """
            SELECT \(unescaped: SessionRow.qualifiedColumns("a")), r.user_scope, r.team_scope, (r.record_id IS NOT NULL) AS record_exists
            FROM attachments a LEFT JOIN records r ON r.collection = a.collection AND r.record_id = a.record_id
            WHERE a.att_id = \(attId)
              AND (\(record?.collection)::text IS NULL OR (a.collection = \(record?.collection) AND a.record_id = \(record?.recordId)))
            ORDER BY (a.device_id = \(deviceId)) DESC, a.created_at, a.id
            LIMIT 20
            """
        ).map { row in
            (try SessionRow.decode(row), try row.decode("record_exists", as: Bool.self) ? try RecordScope.keys(row) : nil)
        }
    }
}

/// Decoding of `attachments` rows.
enum SessionRow {
    static let columns = qualifiedColumns(nil)

    /// The session columns, optionally qualified by a table alias; `expired` is computed by
    /// the database clock, the one clock every instance shares.
    static func qualifiedColumns(_ alias: String?) -> String {
        let prefix = alias.map { "\($0)." } ?? ""
        return [
            "id", "device_id", "att_id", "user_id", "collection", "record_id", "content_type", "total_bytes", "chunk_bytes",
            "chunk_count", "sha256", "chunk_sha256", "status", "blob_sha256", "expires_at",
        ].map { prefix + $0 }.joined(separator: ", ")
            + ", (\(prefix)status = 'uploading' AND \(prefix)expires_at <= now()) AS expired"
    }

    static func decode(_ row: PostgresRow) throws -> UploadSession {
        let statusText = try row.decode("status", as: String.self)
        guard let status = UploadSession.Status(rawValue: statusText) else {
            throw PostgresError(code: .decoding, message: "unknown attachment status \(statusText)")
        }
        let declaration = UploadDeclaration(
            stored: try row.decode("att_id"), recordId: try row.decode("record_id"), collection: try row.decode("collection"),
            contentType: try row.decode("content_type"), totalBytes: try row.decode("total_bytes"),
            chunkBytes: try row.decode("chunk_bytes"), chunkCount: try row.decode("chunk_count"), sha256: try row.decode("sha256"),
            chunkSha256: try row.decode("chunk_sha256"))
        return UploadSession(
            id: try row.decode("id"), deviceId: try row.decode("device_id"), userId: try row.decode("user_id"),
            declaration: declaration, status: status, blobSHA256: try row.decode("blob_sha256"),
            expiresAt: try row.decode("expires_at"), isExpired: try row.decode("expired", as: Bool?.self) ?? false)
    }
}

/// A record's scope keys from its `user_scope` and `team_scope` columns (`user:<id>`, `team:<id>`).
enum RecordScope {
    static func keys(_ row: PostgresRow) throws -> [ScopeKey] {
        [try row.decode("user_scope", as: String?.self), try row.decode("team_scope", as: String?.self)]
            .compactMap { $0.map(ScopeKey.init(rawValue:)) }
    }
}
