import Foundation
import HTTP
public import SyncEngine
import SyncProtocol

/// The resumable upload endpoints of PROTOCOL.md (Attachments) and the download of finished
/// attachments. Every call is authenticated and passes the sync gate (maintenance, emergency
/// version floor, per-device rate limit) before any work.
///
/// ```swift
/// AttachmentsController(uploads: uploads).register(on: routes)
/// ```
public struct AttachmentsController: Sendable {
    let uploads: AttachmentService

    public init(uploads: AttachmentService) {
        self.uploads = uploads
    }

    public func register(on routes: APIRoutes) {
        routes.add(.POST, "/v1/attachments", admission: .sync, handler: registerUpload)
        routes.add(.GET, "/v1/attachments/{attId}", admission: .sync, handler: status)
        // Chunks stream to a file as they arrive: a 4 MiB body never sits in memory, and a
        // declared length over the largest chunk size is refused before any byte is read.
        routes.add(
            .PUT, "/v1/attachments/{attId}/chunks/{index}", admission: .sync,
            options: RouteOptions(maxBodyBytes: UploadDeclaration.chunkBytesRange.upperBound, streamsBodyToFile: true),
            handler: putChunk)
        routes.add(.POST, "/v1/attachments/{attId}/finalize", admission: .sync, handler: finalize)
        routes.add(.GET, "/v1/attachments/{attId}/content", admission: .sync, handler: content)
    }

    /// `POST /v1/attachments`: register, resume or deduplicate.
    @Sendable func registerUpload(_ device: DeviceContext) throws -> Response {
        let declaration = try UploadDeclaration(validating: try device.request.decode(AttachmentRegistration.self))
        let state = try uploads.register(declaration, by: try device.principal())
        return try .json(Self.wire(state))
    }

    /// `GET /v1/attachments/{attId}`: the caller's session and its received chunks.
    @Sendable func status(_ device: DeviceContext) throws -> Response {
        let attId = try Self.attId(device.request)
        return try .json(Self.wire(uploads.status(attId: attId, deviceId: device.identity.deviceId)))
    }

    /// `PUT /v1/attachments/{attId}/chunks/{index}` with `X-Chunk-SHA256`.
    @Sendable func putChunk(_ device: DeviceContext) throws -> Response {
        let request = device.request
        let attId = try Self.attId(request)
        let index = try Self.chunkIndex(request)
        guard let header = request.headers["x-chunk-sha256"]?.lowercased(), FileDigest.isHexSHA256(header) else {
            throw APIError.validationFailed(field: "X-Chunk-SHA256", "X-Chunk-SHA256 must be the chunk's SHA-256 in hex")
        }
        guard let body = request.bodyFile else { throw APIError.internalError() }
        try uploads.storeChunk(attId: attId, index: index, body: body, claimedSHA256: header, deviceId: device.identity.deviceId)
        return try .json(ChunkStored(attId: attId, index: index))
    }

    /// `POST /v1/attachments/{attId}/finalize`, optional body `{"chunkSha256": [...]}`.
    @Sendable func finalize(_ device: DeviceContext) throws -> Response {
        let request = device.request
        let attId = try Self.attId(request)
        let list = request.body.isEmpty ? nil : try request.decode(FinalizeRequest.self).chunkSha256
        let sha256 = try uploads.finalize(attId: attId, chunkSHA256: list, deviceId: device.identity.deviceId)
        return try .json(FinalizeResponse(sha256: sha256))
    }

    /// `GET /v1/attachments/{attId}/content[?collection=…&recordId=…]`: the bytes, scope-checked
    /// on the attachment's record (the named one when given), with ranges and ETag.
    @Sendable func content(_ device: DeviceContext) throws -> Response {
        let attId = try Self.attId(device.request)
        let record = try Self.record(device.request)
        let content = try uploads.content(attId: attId, of: record, principal: try device.principal())
        return ContentResponse.make(for: content, request: device.request)
    }

    /// The record named by the `collection` and `recordId` query parameters; nil when neither is given.
    private static func record(_ request: Request) throws -> RecordKey? {
        let collection = request.query["collection"]
        let recordId = request.query["recordId"]
        if collection == nil, recordId == nil { return nil }
        for (field, value) in [("collection", collection), ("recordId", recordId)] {
            guard let value, DeviceIdentifier.isValid(value) else {
                throw APIError.validationFailed(field: field, "collection and recordId go together, each 1-128 of A-Z a-z 0-9 . _ : -")
            }
        }
        return RecordKey(collection: collection ?? "", recordId: recordId ?? "")
    }

    // MARK: - Helpers

    private static func attId(_ request: Request) throws -> String {
        let attId = try request.parameter("attId")
        guard DeviceIdentifier.isValid(attId) else {
            throw APIError.validationFailed(field: "attId", "attId must be 1-128 characters of A-Z a-z 0-9 . _ : -")
        }
        return attId
    }

    /// A chunk index: plain decimal digits (no sign), small enough that it cannot overflow;
    /// whether it is in range is the session's call.
    private static func chunkIndex(_ request: Request) throws -> Int {
        let text = try request.parameter("index")
        guard (1...9).contains(text.utf8.count), text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let index = Int(text) else {
            throw APIError.validationFailed(field: "index", "index must be a chunk number 0, 1, 2, …")
        }
        return index
    }

    static func wire(_ state: UploadState) -> AttachmentSession {
        let open = state.status == .uploading
        return AttachmentSession(
            attId: state.attId, status: state.status.rawValue, uploadUrl: open ? "/v1/attachments/\(state.attId)/chunks" : nil,
            receivedChunks: open ? state.receivedChunks : nil, expiresAt: state.expiresAt.map(RFC3339.string(from:)),
            sha256: state.sha256)
    }
}
