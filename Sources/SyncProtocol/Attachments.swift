/// `POST /v1/attachments` request: registers (or resumes) an upload session.
public struct AttachmentRegistration: Codable, Sendable, Hashable {
    public var attId: String
    public var recordId: String
    public var collection: String
    public var contentType: String
    public var totalBytes: Int64
    public var chunkBytes: Int
    public var chunkCount: Int
    /// Lower-case hex SHA-256 of the whole file.
    public var sha256: String
    public var chunkSha256: [String]?

    public init(
        attId: String, recordId: String, collection: String, contentType: String, totalBytes: Int64, chunkBytes: Int,
        chunkCount: Int, sha256: String, chunkSha256: [String]? = nil
    ) {
        self.attId = attId
        self.recordId = recordId
        self.collection = collection
        self.contentType = contentType
        self.totalBytes = totalBytes
        self.chunkBytes = chunkBytes
        self.chunkCount = chunkCount
        self.sha256 = sha256
        self.chunkSha256 = chunkSha256
    }
}

/// The state of an upload session (`POST /v1/attachments`, `GET /v1/attachments/{attId}`).
public struct AttachmentSession: Codable, Sendable, Hashable {
    public var attId: String
    /// `uploading` or `complete`.
    public var status: String
    public var uploadUrl: String?
    public var receivedChunks: [Int]?
    /// RFC 3339.
    public var expiresAt: String?
    public var sha256: String?

    public init(
        attId: String, status: String, uploadUrl: String? = nil, receivedChunks: [Int]? = nil, expiresAt: String? = nil,
        sha256: String? = nil
    ) {
        self.attId = attId
        self.status = status
        self.uploadUrl = uploadUrl
        self.receivedChunks = receivedChunks
        self.expiresAt = expiresAt
        self.sha256 = sha256
    }
}

/// `PUT /v1/attachments/{attId}/chunks/{index}` response.
public struct ChunkStored: Codable, Sendable, Hashable {
    public var attId: String
    public var index: Int
    /// Always `stored`.
    public var status: String

    public init(attId: String, index: Int, status: String = "stored") {
        self.attId = attId
        self.index = index
        self.status = status
    }
}

/// `POST /v1/attachments/{attId}/finalize` optional request body.
public struct FinalizeRequest: Codable, Sendable, Hashable {
    public var chunkSha256: [String]?

    public init(chunkSha256: [String]? = nil) { self.chunkSha256 = chunkSha256 }
}

/// `POST /v1/attachments/{attId}/finalize` response.
public struct FinalizeResponse: Codable, Sendable, Hashable {
    /// Always `complete`.
    public var status: String
    public var sha256: String

    public init(status: String = "complete", sha256: String) {
        self.status = status
        self.sha256 = sha256
    }
}
