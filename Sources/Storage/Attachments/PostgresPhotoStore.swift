public import Foundation
public import Postgres
public import SyncEngine

/// The back-office's view of `attachments` (`Migrations/0003_attachments.sql`): a record's
/// photos and one photo by its server id.
///
/// ```swift
/// let photos = try PostgresPhotoStore(database: client).photos(of: RecordKey(collection: "reports", recordId: "rep-1"))
/// ```
public struct PostgresPhotoStore: PhotoStore {
    let database: PostgresClient

    public init(database: PostgresClient) {
        self.database = database
    }

    public func photos(of record: RecordKey) throws -> [StoredPhoto] {
        let rows = try database.connection { connection in
            try connection.query(
                """
                SELECT DISTINCT ON (att_id) \(unescaped: Self.columns) FROM attachments
                WHERE collection = \(record.collection) AND record_id = \(record.recordId)
                ORDER BY att_id, status = 'complete' DESC, created_at, id
                """)
        }
        return try rows.map(Self.decode)
    }

    public func photo(id: UUID, teamId: String?) throws -> (photo: StoredPhoto, visible: Bool)? {
        // The team rule of `PostgresSyncCentreStore.record`, or an upload by a member.
        let rows = try database.connection { connection in
            try connection.query(
                """
                SELECT \(unescaped: Self.columns),
                       \(teamId)::text IS NULL
                       OR a.user_id IN (SELECT id FROM users WHERE team_id = \(teamId))
                       OR EXISTS (SELECT 1 FROM records r WHERE r.collection = a.collection AND r.record_id = a.record_id
                                  AND (r.team_scope = 'team:' || \(teamId)
                                       OR r.user_scope IN (SELECT 'user:' || id FROM users WHERE team_id = \(teamId)))) AS visible
                FROM attachments a WHERE a.id = \(id)
                """)
        }
        guard let row = rows.first else { return nil }
        return (try Self.decode(row), try row.decode("visible"))
    }

    private static let columns = """
        id, att_id, collection, record_id, content_type, total_bytes, status, blob_sha256,
        (status = 'uploading' AND expires_at <= now()) AS expired
        """

    private static func decode(_ row: PostgresRow) throws -> StoredPhoto {
        let state: StoredPhoto.State
        if let sha256 = try row.decode("blob_sha256", as: String?.self) {
            state = .ready(sha256: sha256)
        } else {
            state = try row.decode("expired", as: Bool?.self) == true ? .abandoned : .uploading
        }
        return StoredPhoto(
            id: try row.decode("id"), attId: try row.decode("att_id"),
            record: RecordKey(collection: try row.decode("collection"), recordId: try row.decode("record_id")),
            contentType: try row.decode("content_type"), size: try row.decode("total_bytes"), state: state)
    }
}
