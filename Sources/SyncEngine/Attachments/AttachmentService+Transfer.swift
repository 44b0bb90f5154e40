public import Foundation
import Support
import SyncProtocol

extension AttachmentService {
    // MARK: - Chunks

    /// Verifies a received chunk and writes it durably to its place in the session's file;
    /// re-sending a stored chunk rewrites identical bytes, and a chunk for a complete session
    /// is accepted without writing.
    ///
    /// The checks run before anything is written: index in range, exact size (every chunk is
    /// `chunkBytes` long except the last, which holds the rest), then the SHA-256 against
    /// the header and the registered digest.
    ///
    /// The session row is held with `FOR KEY SHARE` from the check to the commit: chunks of
    /// one session may be written side by side, but never while a finalize (`FOR UPDATE`)
    /// verifies and moves the file, nor into a session being swept or restarted. Without it
    /// a chunk written during finalize could alter a blob after its digest was checked.
    /// - Parameters:
    ///   - body: The request body file; copied into the session's file on success.
    ///   - claimedSHA256: The `X-Chunk-SHA256` header, lowercase hex.
    /// - Throws: `AttachmentError` `.sessionNotFound`, `.sessionExpired`, `.invalid`, `.chunkChecksumMismatch`.
    public func storeChunk(attId: String, index: Int, body: URL, claimedSHA256: String, deviceId: String) throws {
        let hours = try settings.current().effectiveUploadSessionHours
        try store.transaction { tx in
            // The chunk's bytes are flushed before its record is written, and losing the record in
            // a crash only makes the session list the chunk as missing, so the device re-sends it:
            // this commit need not wait for the log flush (one disk flush per chunk).
            try tx.commitWithoutFlush()
            guard let session = try tx.session(deviceId: deviceId, attId: attId, lock: .keyShare) else {
                throw AttachmentError.sessionNotFound
            }
            guard session.status == .uploading else { return }
            guard !session.isExpired else { throw AttachmentError.sessionExpired }
            let digest = try Self.verify(body, as: index, of: session.declaration, claimedSHA256: claimedSHA256)
            try chunks.write(body, session: session.id, at: Int64(index) * Int64(session.declaration.chunkBytes))
            try tx.recordChunk(index, of: session.id, sha256: digest, size: session.declaration.expectedSize(ofChunk: index), hours: hours)
        }
    }

    /// Checks a chunk's index, size and SHA-256; returns the digest.
    private static func verify(_ body: URL, as index: Int, of declaration: UploadDeclaration, claimedSHA256: String) throws -> String {
        guard (0..<declaration.chunkCount).contains(index) else {
            throw AttachmentError.invalid(field: "index", message: "index must be 0...\(declaration.chunkCount - 1)")
        }
        let expected = declaration.expectedSize(ofChunk: index)
        let (actual, size) = try FileDigest.sha256(of: body)
        guard size == Int64(expected) else {
            let problem = size > Int64(declaration.chunkBytes) ? "is longer than chunkBytes" : "must be \(expected) bytes"
            throw AttachmentError.invalid(field: "body", message: "chunk \(index) \(problem), got \(size)")
        }
        for digest in [claimedSHA256, declaration.chunkSha256?[index]].compactMap({ $0 }) where digest != actual {
            throw AttachmentError.chunkChecksumMismatch(expected: digest, actual: actual)
        }
        return actual
    }

    // MARK: - Finalize

    /// Verifies the whole file (assembled in place as the chunks arrived) and stores it as a
    /// blob (once per SHA-256), completes the session, writes `attachment.completed` and then tells the
    /// listener. Finalizing a complete session answers the same again.
    /// - Parameter chunkSHA256: Per-chunk digests sent with finalize; they take precedence
    ///   over those of the registration when a mismatch has to be traced to chunks.
    /// - Returns: The file's SHA-256.
    /// - Throws: `AttachmentError` `.sessionNotFound`, `.sessionExpired`, `.invalid`,
    ///   `.chunksMissing`, `.fileChecksumMismatch` (the suspect chunks are dropped).
    public func finalize(attId: String, chunkSHA256: [String]?, deviceId: String) throws -> String {
        let outcome = try store.transaction { tx -> (session: UploadSession, suspects: [Int]?) in
            guard let session = try tx.session(deviceId: deviceId, attId: attId, lock: .update) else {
                throw AttachmentError.sessionNotFound
            }
            if session.status == .complete { return (session, nil) }
            guard !session.isExpired else { throw AttachmentError.sessionExpired }
            let reference = try chunkSHA256.map { try UploadDeclaration.chunkDigests($0, count: session.declaration.chunkCount) }
            return try assemble(session, reference: reference ?? session.declaration.chunkSha256, in: tx)
        }
        if let suspects = outcome.suspects { throw AttachmentError.fileChecksumMismatch(suspects: suspects) }
        chunks.removeSession(outcome.session.id)
        announce(attId: attId, deviceId: deviceId)
        return outcome.session.declaration.sha256
    }

    /// Hands the session's file, assembled as the chunks arrived, to the blob store, which
    /// verifies the SHA-256 and moves it in. On a mismatch the suspect chunks are forgotten
    /// (the transaction still commits; their bytes are overwritten when re-sent) and returned.
    private func assemble(
        _ session: UploadSession, reference: [String]?, in tx: any AttachmentTransaction
    ) throws
        -> (session: UploadSession, suspects: [Int]?)
    {
        let declaration = session.declaration
        let stored = try tx.chunks(of: session.id)
        let missing = Set(0..<declaration.chunkCount).subtracting(stored.map(\.index)).sorted()
        guard missing.isEmpty else { throw AttachmentError.chunksMissing(missing) }
        try tx.lockBlob(declaration.sha256)
        let assembled = chunks.file(of: session.id)
        // A finalize whose commit failed after the move left no file, but the blob: not moved again.
        let movedBefore = try !FileManager.default.fileExists(atPath: assembled.path) && blobs.exists(declaration.sha256)
        do {
            if !movedBefore { _ = try blobs.put(assembled, sha256: declaration.sha256) }
        } catch BlobStoreError.checksumMismatch {
            let differing = reference.map { list in stored.filter { $0.sha256 != list[$0.index] }.map(\.index) } ?? []
            // No list, or a list that matches every chunk yet not the file: any chunk may be wrong.
            let suspects = differing.isEmpty ? stored.map(\.index) : differing
            try tx.forgetChunks(suspects, of: session.id)
            return (session, suspects)
        }
        try tx.recordBlob(declaration.sha256, size: declaration.totalBytes, contentType: declaration.contentType)
        let completed = try tx.complete(session.id, blob: declaration.sha256)
        try recordCompletion(completed, scope: try tx.recordScope(collection: declaration.collection, recordId: declaration.recordId), in: tx)
        return (completed, nil)
    }

    // MARK: - Status and content

    /// The caller's session for `attId` with the chunks received so far.
    /// - Throws: `AttachmentError.sessionNotFound` or `.sessionExpired`.
    public func status(attId: String, deviceId: String) throws -> UploadState {
        let session = try liveSession(attId: attId, deviceId: deviceId)
        guard session.status == .uploading else { return UploadState(session, receivedChunks: []) }
        return UploadState(session, receivedChunks: try store.read { try $0.chunks(of: session.id) }.map(\.index))
    }

    /// The finished attachment `attId` if `principal` may read it, resolved by the record it
    /// was registered for (only `record`'s when given): when that record exists, whoever sees
    /// it; before that, the uploading user and office roles. Among several devices'
    /// attachments of that name the caller's own comes first, then the oldest.
    /// - Throws: `AttachmentError.contentNotFound` (also for attachments the caller may not
    ///   read) or `.contentNotReady`.
    public func content(attId: String, of record: RecordKey? = nil, principal: Principal) throws -> AttachmentContent {
        let candidates = try store.read { try $0.attachments(named: attId, of: record, preferring: principal.deviceId) }
        guard let (session, _) = candidates.first(where: { Self.mayRead($0.0, scope: $0.1, principal: principal) }) else {
            throw AttachmentError.contentNotFound
        }
        guard session.status == .complete, let sha256 = session.blobSHA256 else { throw AttachmentError.contentNotReady }
        guard let file = try blobs.open(sha256) else {
            logger.error("blob missing from the blob store", metadata: ["attachment.sha256": sha256])
            throw POSIXError(.ENOENT)
        }
        return AttachmentContent(attId: attId, contentType: session.declaration.contentType, sha256: sha256, file: file)
    }

    static func mayRead(_ session: UploadSession, scope: [ScopeKey]?, principal: Principal) -> Bool {
        guard let scope else { return principal.role.isOffice || principal.userId == session.userId }
        return principal.canSee(scope, in: session.declaration.collection)
    }

    /// The caller's session, open or complete.
    /// - Throws: `.sessionNotFound` or `.sessionExpired`.
    private func liveSession(attId: String, deviceId: String) throws -> UploadSession {
        guard let session = try store.read({ try $0.session(deviceId: deviceId, attId: attId, lock: nil) }) else {
            throw AttachmentError.sessionNotFound
        }
        guard !session.isExpired else { throw AttachmentError.sessionExpired }
        return session
    }
}
