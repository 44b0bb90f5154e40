import Foundation
public import Postgres
public import SyncEngine

/// The attachment tables in PostgreSQL (`Migrations/0003_attachments.sql`).
///
/// ```swift
/// let store = PostgresAttachmentStore(database: client)
/// let ready = try store.finalized(among: ["att-1", "att-2"], deviceId: "dev-8842")
/// let session = try store.transaction { try $0.session(deviceId: "dev-8842", attId: "att-1", lock: .update) }
/// ```
public struct PostgresAttachmentStore: AttachmentStore {
    let database: PostgresClient

    public init(database: PostgresClient) {
        self.database = database
    }

    public func transaction<T>(_ body: (any AttachmentTransaction) throws -> T) throws -> T {
        try database.transaction { try body(PostgresAttachmentTransaction(connection: $0)) }
    }

    /// Runs read-only `body` on a pooled connection, without transaction round trips.
    public func read<T>(_ body: (any AttachmentTransaction) throws -> T) throws -> T {
        try database.connection { try body(PostgresAttachmentTransaction(connection: $0)) }
    }

    /// The attachment ids among `ids` that are finalized: uploaded by `deviceId`, or by any
    /// device when `deviceId` is nil.
    public func finalized(among ids: [String], deviceId: String?) throws -> Set<String> {
        try database.connection { try Self.finalized(among: ids, deviceId: deviceId, on: $0) }
    }

    /// The same, on a connection the caller holds, e.g. inside the sync store's push
    /// transaction (`SyncTransaction.finalizedAttachments(among:)`).
    public static func finalized(among ids: [String], deviceId: String?, on connection: PostgresConnection) throws -> Set<String> {
        guard !ids.isEmpty else { return [] }
        let rows = try connection.query(
            """
            SELECT DISTINCT att_id FROM attachments
            WHERE att_id = ANY(\(ids)::text[]) AND status = 'complete'
              AND (\(deviceId)::text IS NULL OR device_id = \(deviceId))
            """)
        return Set(try rows.map { try $0.decode("att_id", as: String.self) })
    }
}

/// The sync store asks, inside its push transaction, which `dependsOn` ids are finalized,
/// and for which records: an id counts only for the record its attachment was registered for.
extension PostgresAttachmentStore: FinalizedAttachmentLookup {
    public func finalized(among ids: [String], on connection: PostgresConnection) throws -> Set<AttachmentRef> {
        guard !ids.isEmpty else { return [] }
        let rows = try connection.query(
            """
            SELECT DISTINCT att_id, collection, record_id FROM attachments WHERE att_id = ANY(\(ids)::text[]) AND status = 'complete'
            """)
        return Set(
            try rows.map { row in
                AttachmentRef(
                    attId: try row.decode("att_id"),
                    record: RecordKey(collection: try row.decode("collection"), recordId: try row.decode("record_id")))
            })
    }
}

/// The queries of one attachment transaction.
struct PostgresAttachmentTransaction: AttachmentTransaction {
    let connection: PostgresConnection

    /// Serializes registrations of one device, so its open-session cap holds under races.
    func lockDevice(_ deviceId: String) throws {
        try connection.query("SELECT pg_advisory_xact_lock(hashtextextended(\("fieldsync.attachments:" + deviceId), 0))")
    }

    /// Serializes registrations for one record, so its byte total holds under races.
    /// Always taken after `lockDevice`, so two registrations never wait on each other in a cycle.
    func lockRecord(collection: String, recordId: String) throws {
        try connection.query(
            "SELECT pg_advisory_xact_lock(hashtextextended(\("fieldsync.attachments.record:" + collection + "/" + recordId), 0))")
    }

    func lockBlob(_ sha256: String) throws {
        try Self.lockBlob(sha256, on: connection)
    }

    /// The lock a finalize storing `sha256` and the sweep removing its file both take.
    static func lockBlob(_ sha256: String, on connection: PostgresConnection) throws {
        try connection.query("SELECT pg_advisory_xact_lock(hashtextextended(\("fieldsync.blob:" + sha256), 0))")
    }

    /// The session of `deviceId` named `attId`; with `lock`, its row stays locked until commit.
    func session(deviceId: String, attId: String, lock: SessionLock?) throws -> UploadSession? {
        try connection.query(
            """
            SELECT \(unescaped: SessionRow.columns) FROM attachments
            WHERE device_id = \(deviceId) AND att_id = \(attId) \(unescaped: lock.map(Self.clause) ?? "")
            """
        ).first.map(SessionRow.decode)
    }

    /// The row-lock clause of `lock`.
    private static func clause(_ lock: SessionLock) -> String {
        switch lock {
        case .update: "FOR UPDATE"
        case .keyShare: "FOR KEY SHARE"
        }
    }

    /// Stores a new session, open (expiring after `hours` of inactivity) or already complete.
    func insert(
        _ declaration: UploadDeclaration, deviceId: String, userId: String, completeWith blob: String?, hours: Int
    ) throws
        -> UploadSession
    {
        let status = blob == nil ? UploadSession.Status.uploading : .complete
        return try SessionRow.decode(
            connection.query(
                """
                INSERT INTO attachments (id, device_id, att_id, user_id, collection, record_id, content_type, total_bytes,
                                         chunk_bytes, chunk_count, sha256, chunk_sha256, status, blob_sha256, expires_at, completed_at)
                VALUES (\(UUID()), \(deviceId), \(declaration.attId), \(userId), \(declaration.collection), \(declaration.recordId),
                        \(declaration.contentType), \(declaration.totalBytes), \(declaration.chunkBytes), \(declaration.chunkCount),
                        \(declaration.sha256), \(declaration.chunkSha256)::text[], \(status.rawValue), \(blob),
                        CASE WHEN \(blob)::text IS NULL THEN now() + make_interval(hours => \(hours)) END,
                        CASE WHEN \(blob)::text IS NOT NULL THEN now() END)
                RETURNING \(unescaped: SessionRow.columns)
                """)[0])
    }

    /// Records activity on an open session: its expiry moves `hours` ahead. Returns the
    /// updated session (nil when it is no longer open).
    func touch(_ session: UUID, hours: Int) throws -> UploadSession? {
        try connection.query(
            """
            UPDATE attachments SET last_activity_at = now(), expires_at = now() + make_interval(hours => \(hours))
            WHERE id = \(session) AND status = 'uploading' RETURNING \(unescaped: SessionRow.columns)
            """
        ).first.map(SessionRow.decode)
    }

    func delete(_ session: UUID) throws {
        try connection.execute("DELETE FROM attachments WHERE id = \(session)")
    }

    /// Deletes up to `limit` expired open sessions (skipping rows another call holds) and
    /// returns their ids, whose chunk folders the caller removes after commit.
    func deleteExpired(limit: Int) throws -> [UUID] {
        try connection.query(
            """
            DELETE FROM attachments WHERE id IN (
                SELECT id FROM attachments WHERE status = 'uploading' AND expires_at <= now()
                ORDER BY expires_at LIMIT \(limit) FOR UPDATE SKIP LOCKED)
            RETURNING id
            """
        ).map { try $0.decode("id", as: UUID.self) }
    }

    /// Open, unexpired sessions of a device.
    func openSessionCount(deviceId: String) throws -> Int {
        try connection.query(
            """
            SELECT count(*) AS n FROM attachments WHERE device_id = \(deviceId) AND status = 'uploading' AND expires_at > now()
            """)[0].decode("n", as: Int.self)
    }

    /// Open, unexpired sessions of a user (found through the open-session expiry index).
    func openSessionCount(userId: String) throws -> Int {
        try connection.query(
            """
            SELECT count(*) AS n FROM attachments WHERE user_id = \(userId) AND status = 'uploading' AND expires_at > now()
            """)[0].decode("n", as: Int.self)
    }

    /// Bytes of the record's live attachments (complete, or open and unexpired), leaving out
    /// `attId` of `deviceId` (the one being registered).
    func recordBytes(collection: String, recordId: String, excluding deviceId: String, attId: String) throws -> Int64 {
        try connection.query(
            """
            SELECT coalesce(sum(total_bytes), 0)::bigint AS n FROM attachments
            WHERE collection = \(collection) AND record_id = \(recordId)
              AND (status = 'complete' OR expires_at > now()) AND NOT (device_id = \(deviceId) AND att_id = \(attId))
            """)[0].decode("n", as: Int64.self)
    }

    /// The record's scope keys, or nil when the record does not exist (yet).
    func recordScope(collection: String, recordId: String) throws -> [ScopeKey]? {
        try connection.query(
            """
            SELECT user_scope, team_scope FROM records WHERE collection = \(collection) AND record_id = \(recordId)
            """
        ).first.map(RecordScope.keys)
    }
}

extension PostgresAttachmentTransaction {
    func publish(_ events: [PendingEvent]) throws {
        try EventOutbox.append(events, on: connection)
    }

    /// Queued, so the setting travels with the next statement rather than in a round trip of its own.
    func commitWithoutFlush() throws {
        try connection.enqueue([CommitFlush.skipped])
    }
}
