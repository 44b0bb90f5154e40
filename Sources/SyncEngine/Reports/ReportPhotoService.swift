import Cryptography
public import Foundation
import SyncProtocol

/// What `POST /v1/reports/{serverId}/photos` answers.
public struct PhotoReceipt: Sendable, Hashable {
    public var serverId: String
    public var attachmentId: String
    /// The report's `serverSeq` after the photo was appended.
    public var revision: Int64?
    public var photosReceived: Int
    /// `answers.photoCount` as the device sent it, if it did.
    public var photosExpected: Int?

    /// Complete for the office: every expected photo arrived (no count declared: no photos expected).
    public var photosComplete: Bool { photosReceived >= (photosExpected ?? 0) }
}

/// Stores one photo of an accepted report and appends its attachment id to the report's
/// `photos`.
///
/// The photo goes through the attachment machinery (registered, stored as chunks, verified and
/// finalized; blobs are content-addressed by SHA-256, so a photo sent twice is stored once).
/// The append is an op of the uploading device, numbered like report ops, whose id derives
/// from (report, attachment): a retried upload replays instead of appending twice.
///
/// Completeness: a report expects `answers.photoCount` photos (the device puts the count in
/// the report payload); the office compares it with the length of `photos`.
public struct ReportPhotoService: Sendable {
    let reports: ReportSyncService
    let attachments: AttachmentService

    public init(reports: ReportSyncService, attachments: AttachmentService) {
        self.reports = reports
        self.attachments = attachments
    }

    /// Uploads `file` as a photo of report `serverId` and appends it.
    /// - Throws: ``AttachmentError`` from the upload, ``SyncError`` (`NOT_FOUND` for an unknown
    ///   or deleted report, or the push code when the append is refused).
    public func attach(_ file: URL, contentType: String, to serverId: String, by principal: Principal) throws -> PhotoReceipt {
        let (sha256, size) = try FileDigest.sha256(of: file)
        guard size > 0 else { throw SyncError.validation("photo", "the photo is empty") }
        let key = RecordKey(collection: ReportSyncService.collection, recordId: serverId)
        try checkVisible(key, by: principal)
        let attId = "photo:" + SHA256.hash(Data("\(serverId):\(sha256)".utf8)).hexString.prefix(40)
        try upload(file, attId: attId, sha256: sha256, size: size, contentType: contentType, serverId: serverId, by: principal)
        let opId = "report-photo:" + SHA256.hash(Data("\(serverId):\(attId)".utf8)).hexString
        let (result, record) = try reports.pushes.store.transaction { tx in
            let version = reports.pushes.processor.schema.version
            let result = try reports.pushes.runServerNumbered(opId: opId, key: key, schemaVersion: version, by: principal, in: tx) { current, clientSeq in
                try Self.appendOp(attId, to: current, key: key, opId: opId, clientSeq: clientSeq)
            }
            return (result, try tx.lockRecords([key]).first)
        }
        guard result.status == .applied else {
            throw SyncError(result.code ?? .internalError, result.message ?? "the photo was not attached", details: result.details)
        }
        let photos = record?.payload["photos"]?.arrayValue ?? []
        let expected = record?.payload["answers"]?["photoCount"]?.intValue.map(Int.init)
        return PhotoReceipt(
            serverId: serverId, attachmentId: attId, revision: result.serverSeq, photosReceived: photos.count, photosExpected: expected)
    }

    /// Refuses before anything is stored: a report that does not exist, is deleted or lies
    /// outside the caller's scope is `NOT_FOUND` alike, so the answer reveals nothing.
    private func checkVisible(_ key: RecordKey, by principal: Principal) throws {
        let record = try reports.pushes.store.transaction { tx in try tx.lockRecords([key]).first }
        guard let record, !record.isDeleted, principal.canSee(record.scopeKeys) else {
            throw SyncError(.notFound, "no report \(key.recordId)")
        }
    }

    /// The update that appends `attId` to `photos` (unchanged when already there).
    static func appendOp(_ attId: String, to current: StoredRecord?, key: RecordKey, opId: String, clientSeq: Int64) throws -> PushOp {
        guard let current, !current.isDeleted else { throw SyncError(.notFound, "no report \(key.recordId)") }
        let photos = current.payload["photos"]?.arrayValue ?? []
        let appended = photos.contains(.string(attId)) ? photos : photos + [.string(attId)]
        return PushOp(
            opId: opId, clientSeq: clientSeq, collection: key.collection, recordId: key.recordId, type: .update,
            baseServerSeq: current.serverSeq, occurredAt: RFC3339.string(from: Date()),
            fields: ["photos": FieldChange(old: current.payload["photos"], new: .array(appended))])
    }

    /// Registers the photo as an attachment of the report and stores its missing chunks.
    private func upload(
        _ file: URL, attId: String, sha256: String, size: Int64, contentType: String, serverId: String, by principal: Principal
    ) throws {
        let chunkBytes = UploadDeclaration.chunkBytesRange.upperBound
        let chunkCount = Int((size + Int64(chunkBytes) - 1) / Int64(chunkBytes))
        let declaration = try UploadDeclaration(
            validating: AttachmentRegistration(
                attId: attId, recordId: serverId, collection: ReportSyncService.collection, contentType: contentType, totalBytes: size,
                chunkBytes: chunkBytes, chunkCount: chunkCount, sha256: sha256))
        let state = try attachments.register(declaration, by: principal)
        guard state.status != .complete else { return }
        let reader = try FileHandle(forReadingFrom: file)
        defer { try? reader.close() }
        for index in 0..<chunkCount where !state.receivedChunks.contains(index) {
            try reader.seek(toOffset: UInt64(index) * UInt64(chunkBytes))
            let bytes = try reader.read(upToCount: chunkBytes) ?? Data()
            let chunk = file.deletingLastPathComponent().appendingPathComponent("chunk-" + UUID().uuidString)
            try bytes.write(to: chunk)
            defer { try? FileManager.default.removeItem(at: chunk) }
            try attachments.storeChunk(
                attId: attId, index: index, body: chunk, claimedSHA256: SHA256.hash(bytes).hexString, deviceId: principal.deviceId)
        }
        _ = try attachments.finalize(attId: attId, chunkSHA256: nil, deviceId: principal.deviceId)
    }
}
