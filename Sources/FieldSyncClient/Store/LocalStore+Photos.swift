import Foundation
import SQLite
import SyncProtocol

/// A photo's row: what its upload declares and where it stands.
struct PhotoRow: Sendable, Equatable {
    var attId: String
    var collection: String
    var recordId: String
    var contentType: String
    var fileName: String
    var totalBytes: Int64
    var chunkBytes: Int
    var sha256: String
    var chunkSha256: [String]
    var state: LocalPhoto.State
    var problem: String?
    var problemCode: ErrorCode?

    init(_ row: Row) throws {
        attId = try row.decode("att_id")
        collection = try row.decode("collection")
        recordId = try row.decode("record_id")
        contentType = try row.decode("content_type")
        fileName = try row.decode("file_name")
        totalBytes = try row.decode("total_bytes")
        chunkBytes = try row.decode("chunk_bytes")
        sha256 = try row.decode("sha256")
        chunkSha256 = try StoredJSON.decode([String].self, try row.decode("chunk_sha256"))
        state = LocalPhoto.State(rawValue: try row.decode("state")) ?? .queued
        problem = try row.decode("problem")
        problemCode = try row.decode("problem_code", as: String?.self).map(ErrorCode.init(rawValue:))
    }

    init(attId: String, collection: String, recordId: String, contentType: String, fileName: String, digest: PhotoDigest) {
        self.attId = attId
        self.collection = collection
        self.recordId = recordId
        self.contentType = contentType
        self.fileName = fileName
        totalBytes = digest.byteCount
        chunkBytes = digest.chunkBytes
        sha256 = digest.sha256
        chunkSha256 = digest.chunkSha256
        state = .queued
    }

    /// The registration PROTOCOL.md asks for; the chunk list is kept for the finalize call,
    /// so that bytes damaged on the device after capture are named there.
    var registration: AttachmentRegistration {
        AttachmentRegistration(
            attId: attId, recordId: recordId, collection: collection, contentType: contentType, totalBytes: totalBytes,
            chunkBytes: chunkBytes, chunkCount: chunkSha256.count, sha256: sha256)
    }
}

extension LocalStore {
    func insertPhoto(_ photo: PhotoRow) async throws -> LocalPhoto {
        let chunks = try StoredJSON.text(photo.chunkSha256)
        try await queue.write { db in
            try db.execute(
                """
                INSERT INTO photos (att_id, position, collection, record_id, content_type, file_name, total_bytes, chunk_bytes,
                    sha256, chunk_sha256)
                VALUES (?, (SELECT coalesce(max(position), 0) + 1 FROM photos), ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    photo.attId, photo.collection, photo.recordId, photo.contentType, photo.fileName, photo.totalBytes,
                    photo.chunkBytes, photo.sha256, chunks,
                ])
        }
        return localPhoto(photo)
    }

    /// Bytes of photos already attached to a record on this device.
    func photoBytes(collection: String, recordId: String) async throws -> Int64 {
        try await queue.read { db in
            try db.value(
                Int64.self, "SELECT coalesce(sum(total_bytes), 0) FROM photos WHERE collection = ? AND record_id = ?", [collection, recordId])
        } ?? 0
    }

    /// Photos waiting for upload, in the order they were added.
    func queuedPhotos() async throws -> [PhotoRow] {
        try await queue.read { db in try db.rows("SELECT * FROM photos WHERE state = 'queued' ORDER BY position").map(PhotoRow.init) }
    }

    func photos(collection: String, recordId: String) async throws -> [LocalPhoto] {
        try await queue.read { db in
            try db.rows("SELECT * FROM photos WHERE collection = ? AND record_id = ? ORDER BY position", [collection, recordId]).map(PhotoRow.init)
        }.map(localPhoto)
    }

    func markPhotoUploaded(_ attId: String, at date: Date) async throws {
        try await queue.write { db in
            try db.execute(
                "UPDATE photos SET state = 'uploaded', problem = NULL, problem_code = NULL, uploaded_at = ? WHERE att_id = ?",
                [date.timeIntervalSince1970, attId])
        }
    }

    /// Notes why an upload failed; `failed` takes the photo out of the queue until the user retries.
    func markPhotoProblem(_ attId: String, _ code: ErrorCode, _ problem: String, failed: Bool) async throws {
        try await queue.write { db in
            try db.execute(
                "UPDATE photos SET problem = ?, problem_code = ?, state = CASE WHEN ? THEN 'failed' ELSE state END WHERE att_id = ?",
                [problem, code.rawValue, failed, attId])
        }
    }

    func localPhoto(_ row: PhotoRow) -> LocalPhoto {
        LocalPhoto(
            id: row.attId, collection: row.collection, recordId: row.recordId, contentType: row.contentType, byteCount: row.totalBytes,
            sha256: row.sha256, state: row.state, problem: row.problem, file: photoFile(named: row.fileName))
    }
}
