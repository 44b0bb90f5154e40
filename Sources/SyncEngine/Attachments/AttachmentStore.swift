public import Foundation

/// The attachment tables: what resumable uploads need from the database.
///
/// Storage implements it on PostgreSQL (`PostgresAttachmentStore`).
public protocol AttachmentStore: Sendable {
    /// Runs `body` in one transaction: commits when it returns, rolls back when it throws.
    func transaction<T>(_ body: (any AttachmentTransaction) throws -> T) throws -> T

    /// Runs read-only `body` without a transaction of its own.
    func read<T>(_ body: (any AttachmentTransaction) throws -> T) throws -> T
}

/// How a session row is held until commit.
public enum SessionLock: Sendable {
    /// Exclusive: registration, finalize, deletion.
    case update
    /// Shared among chunk writes, excluded by `update` and deletion.
    case keyShare
}

/// A chunk an open session holds, with the digest its bytes had when stored.
public struct StoredChunk: Sendable, Hashable {
    public let index: Int
    public let sha256: String

    public init(index: Int, sha256: String) {
        self.index = index
        self.sha256 = sha256
    }
}

/// The reads and writes of one attachment transaction, in the terms of `AttachmentService`.
public protocol AttachmentTransaction {
    /// Serializes registrations of one device until commit, so its open-session cap holds under races.
    func lockDevice(_ deviceId: String) throws

    /// Serializes registrations for one record until commit, so its byte total holds under races.
    /// Always taken after `lockDevice`, so two registrations never wait on each other in a cycle.
    func lockRecord(collection: String, recordId: String) throws

    /// Serializes storing the blob `sha256` with the sweep that removes blob files no row
    /// names, until commit: a finalize that finds the file already there (and keeps it) never
    /// sees it removed before its row commits.
    func lockBlob(_ sha256: String) throws

    /// The session of `deviceId` named `attId`; with `lock`, its row stays locked until commit.
    func session(deviceId: String, attId: String, lock: SessionLock?) throws -> UploadSession?

    /// Stores a new session, open (expiring after `hours` of inactivity) or already complete
    /// with the blob `blob`.
    func insert(
        _ declaration: UploadDeclaration, deviceId: String, userId: String, completeWith blob: String?, hours: Int
    ) throws
        -> UploadSession

    /// Records activity on an open session: its expiry moves `hours` ahead. Nil when it is no longer open.
    func touch(_ session: UUID, hours: Int) throws -> UploadSession?

    func delete(_ session: UUID) throws

    /// Deletes up to `limit` expired open sessions (skipping rows another call holds) and
    /// returns their ids, whose chunk files the caller removes after commit.
    func deleteExpired(limit: Int) throws -> [UUID]

    /// Open, unexpired sessions of a device.
    func openSessionCount(deviceId: String) throws -> Int

    /// Open, unexpired sessions of a user, all devices together.
    func openSessionCount(userId: String) throws -> Int

    /// Bytes of the record's live attachments (complete, or open and unexpired), leaving out
    /// `attId` of `deviceId` (the one being registered).
    func recordBytes(collection: String, recordId: String, excluding deviceId: String, attId: String) throws -> Int64

    /// The record's scope keys, or nil when the record does not exist (yet).
    func recordScope(collection: String, recordId: String) throws -> [ScopeKey]?

    /// The chunks a session holds, by ascending index.
    func chunks(of session: UUID) throws -> [StoredChunk]

    /// Records chunk `index` of an open session (a re-sent chunk replaces the earlier one) and
    /// moves the session's expiry `hours` ahead; other chunk writers of the session are not blocked.
    func recordChunk(_ index: Int, of session: UUID, sha256: String, size: Int, hours: Int) throws

    func forgetChunks(_ indexes: [Int], of session: UUID) throws

    /// The size of a stored blob, or nil when no finalized upload has these bytes.
    func blobSize(_ sha256: String) throws -> Int64?

    /// Records a blob whose bytes are durable in the blob store (a second upload of the same
    /// bytes keeps the first record).
    func recordBlob(_ sha256: String, size: Int64, contentType: String) throws

    /// Marks an open session complete and bound to its blob; its chunk records go.
    func complete(_ session: UUID, blob sha256: String) throws -> UploadSession

    /// Every attachment named `attId` (one per device that chose the name), only those
    /// registered for `record` when given, `deviceId`'s first, then by age, each with its
    /// record's scope keys (nil: no record yet).
    func attachments(named attId: String, of record: RecordKey?, preferring deviceId: String) throws -> [(UploadSession, [ScopeKey]?)]

    /// Finished attachments holding the blob `sha256` that `userId` uploaded or whose record
    /// carries one of `visible` (every one when nil), the user's own first, at most `limit`,
    /// each with its record's scope keys (nil: no record yet). A prefilter: the service
    /// decides who may read each.
    func attachments(holding sha256: String, userId: String, visible: [ScopeKey]?, limit: Int) throws -> [(UploadSession, [ScopeKey]?)]

    /// Appends live events, published when the transaction commits.
    func publish(_ events: [PendingEvent]) throws

    /// Lets this transaction commit without waiting for the log flush: for bookkeeping whose
    /// loss in a crash is harmless (it is re-sent), never for acknowledged data.
    func commitWithoutFlush() throws
}

/// Where the bytes of open upload sessions wait: one file per session, chunk `i` at offset
/// `i × chunkBytes`, so the finished file is assembled as the chunks arrive.
public protocol ChunkSpool: Sendable {
    /// Copies the verified chunk `body` into the session's file at `offset`, durably.
    func write(_ body: URL, session: UUID, at offset: Int64) throws

    /// The session's file: complete once every chunk is recorded.
    func file(of session: UUID) -> URL

    /// Deletes a session's file; a missing file is fine.
    func removeSession(_ session: UUID)
}
