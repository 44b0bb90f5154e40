import Foundation
public import Support
import SyncProtocol

/// Resumable, content-addressed attachment uploads (PROTOCOL.md, Attachments): register or
/// resume a session, store verified chunks, finalize into a blob, and serve the bytes.
///
/// ```swift
/// let uploads = AttachmentService(store: PostgresAttachmentStore(database: client), blobs: blobs, chunks: chunks,
///                                 settings: settings, collections: Set(schema.collections.keys), logger: logger)
/// let state = try uploads.register(declaration, by: principal)
/// try uploads.storeChunk(attId: "att-1", index: 0, body: file, claimedSHA256: header, deviceId: principal.deviceId)
/// let sha256 = try uploads.finalize(attId: "att-1", chunkSHA256: nil, deviceId: principal.deviceId)
/// ```
///
/// Sessions belong to the device that registered them; every session call names the
/// caller's device, so another device's session is indistinguishable from a missing one.
/// An open session expires after `uploadSessionHours` without activity: calls on it answer
/// `sessionExpired`, and registering the attId again starts a fresh session.
public final class AttachmentService: Sendable {
    /// Open sessions a device may hold at once.
    public static let maxOpenSessionsPerDevice = 100
    /// Open sessions a user may hold at once, all their devices together.
    public static let maxOpenSessionsPerUser = 200
    /// Expired sessions each registration sweeps away (all devices), so no worker is required.
    static let sweepBatch = 20

    let store: any AttachmentStore
    let blobs: any BlobStore
    let chunks: any ChunkSpool
    let settings: any SettingsStore
    let collections: Set<String>
    let listener: (any AttachmentFinalizationListener)?
    let logger: Logger

    /// - Parameters:
    ///   - collections: The collection names attachments may belong to (the schema's).
    ///   - listener: Told about every finalized attachment, after commit.
    public init(
        store: any AttachmentStore, blobs: any BlobStore, chunks: any ChunkSpool, settings: any SettingsStore, collections: Set<String>,
        listener: (any AttachmentFinalizationListener)? = nil, logger: Logger
    ) {
        self.store = store
        self.blobs = blobs
        self.chunks = chunks
        self.settings = settings
        self.collections = collections
        self.listener = listener
        self.logger = logger
    }

    // MARK: - Register

    /// Registers an upload, resumes the caller's session for the attId, or completes at once
    /// when a blob with the declared SHA-256 exists that the caller may already read
    /// (deduplication: nothing to upload).
    ///
    /// Registering again with the same file but other chunking restarts the session; an
    /// expired session is replaced by a fresh one.
    /// - Throws: `AttachmentError` `.invalid`, `.declarationMismatch`, `.outOfScope`,
    ///   `.tooLarge`, `.tooManySessions`.
    public func register(_ declaration: UploadDeclaration, by principal: Principal) throws -> UploadState {
        guard collections.contains(declaration.collection) else {
            throw AttachmentError.invalid(field: "collection", message: "unknown collection \(declaration.collection)")
        }
        let limits = try settings.current()
        let outcome = try store.transaction { tx -> (state: UploadState, discarded: [UUID], deduplicated: Bool) in
            try tx.lockDevice(principal.deviceId)
            var discarded = try tx.deleteExpired(limit: Self.sweepBatch)
            if let existing = try tx.session(deviceId: principal.deviceId, attId: declaration.attId, lock: .update) {
                if let resumed = try resume(existing, as: declaration, hours: limits.effectiveUploadSessionHours, in: tx) {
                    return (resumed, discarded, false)
                }
                try tx.delete(existing.id)
                discarded.append(existing.id)
            }
            let (state, deduplicated) = try create(declaration, by: principal, limits: limits, in: tx)
            return (state, discarded, deduplicated)
        }
        // Chunk folders go only once the rows are gone for good.
        for session in outcome.discarded { chunks.removeSession(session) }
        if outcome.deduplicated { announce(attId: declaration.attId, deviceId: principal.deviceId) }
        return outcome.state
    }

    /// The state to answer when `existing` can be resumed as it is; nil when it must be
    /// replaced (expired, or the same file cut into other chunks).
    private func resume(
        _ existing: UploadSession, as declaration: UploadDeclaration, hours: Int, in tx: any AttachmentTransaction
    ) throws
        -> UploadState?
    {
        if let field = existing.declaration.identityDifference(from: declaration) {
            throw AttachmentError.declarationMismatch(field: field)
        }
        if existing.status == .complete { return UploadState(existing, receivedChunks: []) }
        guard !existing.isExpired, existing.declaration.sameChunking(as: declaration),
            let touched = try tx.touch(existing.id, hours: hours)
        else { return nil }
        return UploadState(touched, receivedChunks: try tx.chunks(of: existing.id).map(\.index))
    }

    /// A new session, after the scope and limit checks; complete at once when the bytes are
    /// already stored. Returns the state and whether it is complete.
    private func create(
        _ declaration: UploadDeclaration, by principal: Principal, limits: ServerSettings, in tx: any AttachmentTransaction
    ) throws -> (UploadState, Bool) {
        let scope = try tx.recordScope(collection: declaration.collection, recordId: declaration.recordId)
        if let scope, !principal.canSee(scope, in: declaration.collection) { throw AttachmentError.outOfScope }
        guard declaration.totalBytes <= Int64(limits.maxAttachmentBytes) else {
            throw AttachmentError.tooLarge(limit: Int64(limits.maxAttachmentBytes), perRecord: false)
        }
        try tx.lockRecord(collection: declaration.collection, recordId: declaration.recordId)
        let others = try tx.recordBytes(
            collection: declaration.collection, recordId: declaration.recordId, excluding: principal.deviceId, attId: declaration.attId)
        guard others + declaration.totalBytes <= Int64(limits.maxAttachmentBytesPerRecord) else {
            throw AttachmentError.tooLarge(limit: Int64(limits.maxAttachmentBytesPerRecord), perRecord: true)
        }
        if let size = try tx.blobSize(declaration.sha256), try mayReuse(declaration.sha256, by: principal, in: tx) {
            guard size == declaration.totalBytes else {
                throw AttachmentError.invalid(field: "totalBytes", message: "totalBytes differs from the stored file with this sha256")
            }
            let session = try tx.insert(
                declaration, deviceId: principal.deviceId, userId: principal.userId, completeWith: declaration.sha256, hours: 0)
            try recordCompletion(session, scope: scope, in: tx)
            return (UploadState(session, receivedChunks: []), true)
        }
        guard try tx.openSessionCount(deviceId: principal.deviceId) < Self.maxOpenSessionsPerDevice else {
            throw AttachmentError.tooManySessions(limit: Self.maxOpenSessionsPerDevice, perUser: false)
        }
        guard try tx.openSessionCount(userId: principal.userId) < Self.maxOpenSessionsPerUser else {
            throw AttachmentError.tooManySessions(limit: Self.maxOpenSessionsPerUser, perUser: true)
        }
        let session = try tx.insert(
            declaration, deviceId: principal.deviceId, userId: principal.userId, completeWith: nil, hours: limits.effectiveUploadSessionHours)
        return (UploadState(session, receivedChunks: []), false)
    }

    /// Whether `principal` may have a stored blob without uploading it: only when it could
    /// read that blob already (an attachment of it that it uploaded or may see). Anyone else
    /// uploads the bytes, which finalize checks against the SHA-256: knowing a digest never
    /// grants the file.
    private func mayReuse(_ sha256: String, by principal: Principal, in tx: any AttachmentTransaction) throws -> Bool {
        let visible = principal.visibleScopeKeys.map { $0.sorted() }
        let holders = try tx.attachments(holding: sha256, userId: principal.userId, visible: visible, limit: Self.reuseCandidates)
        return holders.contains { Self.mayRead($0.0, scope: $0.1, principal: principal) }
    }

    /// Attachments of a blob looked at when deciding whether a caller may reuse it.
    static let reuseCandidates = 20

    // MARK: - Completion

    /// Writes the `attachment.completed` event in the completing transaction, so it reaches
    /// feeds exactly when the completion commits. Its audience is the record's scope, or the
    /// uploader while the record does not exist.
    func recordCompletion(_ session: UploadSession, scope: [ScopeKey]?, in tx: any AttachmentTransaction) throws {
        let declaration = session.declaration
        let data = JSONValue.object([
            "attId": .string(declaration.attId), "collection": .string(declaration.collection),
            "recordId": .string(declaration.recordId), "sha256": .string(declaration.sha256),
            "status": .string(UploadSession.Status.complete.rawValue),
        ])
        try tx.publish([PendingEvent(type: .attachmentCompleted, data: data, audience: scope ?? [ScopeKey.user(session.userId)])])
    }

    /// Tells the listener, after commit, that ops waiting for the attachment may apply.
    func announce(attId: String, deviceId: String) {
        listener?.attachmentFinalized(attId: attId, deviceId: deviceId)
    }

    /// Deletes up to `limit` expired open sessions and their chunks; returns how many went.
    /// For a periodic worker job; registrations also sweep a few each time.
    @discardableResult
    public func purgeExpiredSessions(limit: Int = 500) throws -> Int {
        let expired = try store.transaction { try $0.deleteExpired(limit: limit) }
        for session in expired { chunks.removeSession(session) }
        return expired.count
    }
}
