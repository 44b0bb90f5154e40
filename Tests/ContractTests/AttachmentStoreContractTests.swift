import Foundation
import Postgres
import Storage
import SyncEngine
import SyncEngineTesting
import Testing

/// The attachments port: upload sessions, their chunks, expiry and blobs, in memory and on PostgreSQL.
@Suite("Attachment store contract: upload sessions")
struct AttachmentStoreContractTests {
    private func attachments(_ implementation: Implementation) throws -> (any AttachmentStore, PostgresClient?) {
        let database = try implementation.database(users: ["u-ana", "u-ben"])
        return (database.map { PostgresAttachmentStore(database: $0) } ?? InMemoryAttachmentStore(), database)
    }

    private func declaration(_ attId: String, bytes: Int64 = 100, sha256: String = String(repeating: "a", count: 64)) -> UploadDeclaration {
        UploadDeclaration(
            stored: attId, recordId: "p-1", collection: "part_usage", contentType: "image/jpeg", totalBytes: bytes, chunkBytes: 64,
            chunkCount: 2, sha256: sha256, chunkSha256: nil)
    }

    struct Rollback: Error {}

    @Test(
        "a session belongs to its device; chunks are replaced, forgotten and dropped on completion; blobs keep their first size",
        arguments: Implementation.allCases)
    func lifecycle(_ implementation: Implementation) throws {
        let (store, database) = try attachments(implementation)
        defer { database?.shutdown() }
        let opened = try store.transaction { try $0.insert(declaration("att-1"), deviceId: "dev-ana", userId: "u-ana", completeWith: nil, hours: 24) }
        #expect(opened.status == .uploading && !opened.isExpired && opened.expiresAt.map { $0 > Date() + 23 * 3600 } == true)

        try store.transaction { tx throws in
            #expect(try tx.session(deviceId: "dev-ana", attId: "att-1", lock: .update)?.id == opened.id)
            #expect(try tx.session(deviceId: "dev-ben", attId: "att-1", lock: nil) == nil)
            #expect(try tx.openSessionCount(deviceId: "dev-ana") == 1 && tx.openSessionCount(userId: "u-ana") == 1)
            try tx.recordChunk(0, of: opened.id, sha256: "first", size: 64, hours: 24)
            try tx.recordChunk(1, of: opened.id, sha256: "second", size: 36, hours: 24)
            try tx.recordChunk(0, of: opened.id, sha256: "again", size: 64, hours: 24)
            #expect(try tx.chunks(of: opened.id) == [StoredChunk(index: 0, sha256: "again"), StoredChunk(index: 1, sha256: "second")])
            try tx.forgetChunks([1], of: opened.id)
            #expect(try tx.chunks(of: opened.id) == [StoredChunk(index: 0, sha256: "again")])
        }
        let sha = opened.declaration.sha256
        let completed = try store.transaction { tx throws in
            try tx.recordBlob(sha, size: 100, contentType: "image/jpeg")
            try tx.recordBlob(sha, size: 7, contentType: "image/png")
            return try tx.complete(opened.id, blob: sha)
        }

        #expect(completed.status == .complete && completed.blobSHA256 == sha && completed.expiresAt == nil && !completed.isExpired)
        try store.read { tx throws in
            #expect(try tx.chunks(of: opened.id).isEmpty)
            #expect(try tx.openSessionCount(deviceId: "dev-ana") == 0)
            #expect(try tx.blobSize(sha) == 100)
            #expect(try tx.blobSize(String(repeating: "b", count: 64)) == nil)
            #expect(try tx.touch(opened.id, hours: 24) == nil, "a complete session is no longer open")
        }
    }

    @Test(
        "an open session lapses by the store's clock: it stops counting, the sweep deletes it, a complete one never lapses",
        arguments: Implementation.allCases)
    func expiry(_ implementation: Implementation) throws {
        let (store, database) = try attachments(implementation)
        defer { database?.shutdown() }
        let sha = String(repeating: "c", count: 64)
        let (lapsing, done) = try store.transaction { tx throws in
            try tx.recordBlob(sha, size: 50, contentType: "image/jpeg")
            return (
                try tx.insert(declaration("att-1", bytes: 30), deviceId: "dev-ana", userId: "u-ana", completeWith: nil, hours: 0),
                try tx.insert(declaration("att-2", bytes: 50, sha256: sha), deviceId: "dev-ana", userId: "u-ana", completeWith: sha, hours: 0)
            )
        }
        #expect(done.status == .complete && done.expiresAt == nil)

        try store.transaction { tx throws in
            #expect(try tx.session(deviceId: "dev-ana", attId: "att-1", lock: nil)?.isExpired == true)
            #expect(try tx.openSessionCount(deviceId: "dev-ana") == 0)
            #expect(try tx.recordBytes(collection: "part_usage", recordId: "p-1", excluding: "dev-ben", attId: "att-9") == 50)
            #expect(try tx.deleteExpired(limit: 10) == [lapsing.id])
            #expect(try tx.deleteExpired(limit: 10).isEmpty)
        }
        #expect(try store.read { try $0.session(deviceId: "dev-ana", attId: "att-2", lock: nil)?.isExpired } == false)

        // Who holds a blob: its uploader, and others only through a record they can see.
        try store.read { tx throws in
            #expect(try tx.attachments(holding: sha, userId: "u-ana", visible: [], limit: 5).map(\.0.attId) == ["att-2"])
            #expect(try tx.attachments(holding: sha, userId: "u-ben", visible: [], limit: 5).isEmpty, "no record yet: only its uploader")
            #expect(try tx.attachments(holding: sha, userId: "u-ben", visible: nil, limit: 5).map(\.0.attId) == ["att-2"])
        }
    }

    @Test(
        "record bytes count live sessions but the one being registered; lookups by name prefer the caller's device; a throw rolls back",
        arguments: Implementation.allCases)
    func recordBytesAndNames(_ implementation: Implementation) throws {
        let (store, database) = try attachments(implementation)
        defer { database?.shutdown() }
        try store.transaction { tx throws in
            _ = try tx.insert(declaration("att-1", bytes: 100), deviceId: "dev-ana", userId: "u-ana", completeWith: nil, hours: 24)
        }
        try store.transaction { tx throws in
            _ = try tx.insert(declaration("att-1", bytes: 40), deviceId: "dev-ben", userId: "u-ben", completeWith: nil, hours: 24)
        }
        #expect(throws: Rollback.self) {
            try store.transaction { tx throws in
                _ = try tx.insert(declaration("att-3", bytes: 1), deviceId: "dev-ana", userId: "u-ana", completeWith: nil, hours: 24)
                throw Rollback()
            }
        }

        try store.read { tx throws in
            #expect(try tx.recordBytes(collection: "part_usage", recordId: "p-1", excluding: "dev-ana", attId: "att-1") == 40)
            #expect(try tx.recordBytes(collection: "part_usage", recordId: "p-1", excluding: "dev-ana", attId: "att-2") == 140)
            #expect(try tx.session(deviceId: "dev-ana", attId: "att-3", lock: nil) == nil, "rolled back")
            let named = try tx.attachments(named: "att-1", of: nil, preferring: "dev-ben")
            #expect(named.map(\.0.deviceId) == ["dev-ben", "dev-ana"] && named.allSatisfy { $0.1 == nil })
            #expect(try tx.attachments(named: "att-1", of: nil, preferring: "dev-carla").map(\.0.deviceId) == ["dev-ana", "dev-ben"])
            let ownRecord = RecordKey(collection: "part_usage", recordId: "p-1")
            #expect(try tx.attachments(named: "att-1", of: ownRecord, preferring: "dev-ben").count == 2)
            #expect(try tx.attachments(named: "att-1", of: RecordKey(collection: "part_usage", recordId: "p-2"), preferring: "dev-ben").isEmpty)
            #expect(try tx.recordScope(collection: "part_usage", recordId: "p-1") == nil)
        }
    }
}
