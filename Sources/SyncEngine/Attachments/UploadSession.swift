public import Foundation

/// One row of `attachments`: an upload session, or a finished attachment bound to its blob.
public struct UploadSession: Sendable, Hashable {
    public enum Status: String, Sendable, Hashable {
        case uploading, complete
    }

    /// Server-generated; names the session's chunk folder.
    public let id: UUID
    public let deviceId: String
    public let userId: String
    public let declaration: UploadDeclaration
    public let status: Status
    /// The blob's digest once complete (equal to `declaration.sha256`).
    public let blobSHA256: String?
    /// When an open session lapses; nil once complete.
    public let expiresAt: Date?
    /// Open and past `expiresAt` by the database clock.
    public let isExpired: Bool

    public init(
        id: UUID, deviceId: String, userId: String, declaration: UploadDeclaration, status: Status, blobSHA256: String?, expiresAt: Date?,
        isExpired: Bool
    ) {
        self.id = id
        self.deviceId = deviceId
        self.userId = userId
        self.declaration = declaration
        self.status = status
        self.blobSHA256 = blobSHA256
        self.expiresAt = expiresAt
        self.isExpired = isExpired
    }

    public var attId: String { declaration.attId }
}

/// What register and status answer: the session's state as a device sees it.
public struct UploadState: Sendable, Hashable {
    public let attId: String
    public let status: UploadSession.Status
    /// Chunk indexes stored so far, ascending (empty once complete).
    public let receivedChunks: [Int]
    public let expiresAt: Date?
    public let sha256: String

    init(_ session: UploadSession, receivedChunks: [Int]) {
        attId = session.attId
        status = session.status
        self.receivedChunks = session.status == .complete ? [] : receivedChunks
        expiresAt = session.expiresAt
        sha256 = session.declaration.sha256
    }
}

/// A finished attachment a caller may download.
public struct AttachmentContent: Sendable, Equatable {
    public let attId: String
    public let contentType: String
    /// Also the ETag: the bytes under an attId never change.
    public let sha256: String
    public let file: BlobFile
}

/// Called after an attachment is finalized (by upload or by deduplication), once the
/// change is committed, so the ops that waited for it (PROTOCOL.md push rule 6) can apply.
///
/// It may be called more than once for the same attachment (a repeated finalize calls it
/// again, which also recovers from a crash right after the commit), so it must be idempotent.
/// Errors are the listener's to log; the finalize answer does not depend on them.
public protocol AttachmentFinalizationListener: Sendable {
    func attachmentFinalized(attId: String, deviceId: String)
}
