import Foundation
public import SyncProtocol

/// A registration that passed the shape checks: what a device promises to upload.
///
/// ```swift
/// let declaration = try UploadDeclaration(validating: registration)   // AttachmentError.invalid(field:…)
/// declaration.expectedSize(ofChunk: declaration.chunkCount - 1)
/// ```
public struct UploadDeclaration: Sendable, Hashable {
    /// The chunk sizes a device may choose (PROTOCOL.md: 64 KiB to 4 MiB).
    public static let chunkBytesRange = (64 << 10)...(4 << 20)

    public let attId: String
    public let recordId: String
    public let collection: String
    public let contentType: String
    public let totalBytes: Int64
    public let chunkBytes: Int
    public let chunkCount: Int
    /// Lowercase hex.
    public let sha256: String
    /// Lowercase hex, one per chunk, when the device declared them.
    public let chunkSha256: [String]?

    /// Checks every field; size limits that depend on settings are checked at registration.
    /// - Throws: `AttachmentError.invalid` naming the first offending field.
    public init(validating registration: AttachmentRegistration) throws {
        for (field, id) in [("attId", registration.attId), ("recordId", registration.recordId), ("collection", registration.collection)]
        where !DeviceIdentifier.isValid(id) {
            throw AttachmentError.invalid(field: field, message: "\(field) must be 1-128 characters of A-Z a-z 0-9 . _ : -")
        }
        // Legal ids, but URL paths cannot carry them: clients remove dot segments (RFC 3986 §5.2.4).
        guard registration.attId != "." && registration.attId != ".." else {
            throw AttachmentError.invalid(field: "attId", message: "attId cannot be \".\" or \"..\", which URLs cannot address")
        }
        guard Self.isMediaType(registration.contentType) else {
            throw AttachmentError.invalid(field: "contentType", message: "contentType must be a media type such as image/jpeg")
        }
        guard registration.totalBytes > 0 else {
            throw AttachmentError.invalid(field: "totalBytes", message: "totalBytes must be at least 1")
        }
        guard Self.chunkBytesRange.contains(registration.chunkBytes) else {
            throw AttachmentError.invalid(field: "chunkBytes", message: "chunkBytes must be between 65536 and 4194304")
        }
        let chunkBytes = Int64(registration.chunkBytes)
        // ceil(totalBytes / chunkBytes) without adding first: totalBytes may be as large as Int64.max,
        // and totalBytes > 0. The count can be absurd; `chunkCount` must equal it exactly, which
        // bounds it by what was declared.
        let expectedCount = (registration.totalBytes - 1) / chunkBytes + 1
        guard Int64(registration.chunkCount) == expectedCount else {
            throw AttachmentError.invalid(field: "chunkCount", message: "chunkCount must be ceil(totalBytes / chunkBytes) = \(expectedCount)")
        }
        let sha256 = registration.sha256.lowercased()
        guard FileDigest.isHexSHA256(sha256) else {
            throw AttachmentError.invalid(field: "sha256", message: "sha256 must be 64 hexadecimal digits")
        }
        self.attId = registration.attId
        self.recordId = registration.recordId
        self.collection = registration.collection
        self.contentType = registration.contentType.lowercased()
        self.totalBytes = registration.totalBytes
        self.chunkBytes = registration.chunkBytes
        self.chunkCount = registration.chunkCount
        self.sha256 = sha256
        self.chunkSha256 = try registration.chunkSha256.map { try Self.chunkDigests($0, count: registration.chunkCount) }
    }

    /// A declaration read back from the database (already validated when registered).
    public init(
        stored attId: String, recordId: String, collection: String, contentType: String, totalBytes: Int64,
        chunkBytes: Int, chunkCount: Int, sha256: String, chunkSha256: [String]?
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

    /// The exact size chunk `index` must have: `chunkBytes`, except the last one, which holds the rest.
    public func expectedSize(ofChunk index: Int) -> Int {
        index == chunkCount - 1 ? Int(totalBytes - Int64(chunkBytes) * Int64(chunkCount - 1)) : chunkBytes
    }

    /// Validates a list of per-chunk digests (at registration or finalize) and lowercases it.
    /// - Throws: `AttachmentError.invalid(field: "chunkSha256")`.
    public static func chunkDigests(_ list: [String], count: Int) throws -> [String] {
        guard list.count == count else {
            throw AttachmentError.invalid(field: "chunkSha256", message: "chunkSha256 must list one digest per chunk (\(count))")
        }
        return try list.enumerated().map { index, digest in
            let lower = digest.lowercased()
            guard FileDigest.isHexSHA256(lower) else {
                throw AttachmentError.invalid(field: "chunkSha256[\(index)]", message: "a chunk digest must be 64 hexadecimal digits")
            }
            return lower
        }
    }

    /// `type/subtype` as RFC 6838 restricted names (a letter or digit, then letters, digits
    /// and `!#$&-^_.+`), at most 127 bytes, no parameters.
    static func isMediaType(_ text: String) -> Bool {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard text.utf8.count <= 127, parts.count == 2 else { return false }
        func isAlphanumeric(_ byte: UInt8) -> Bool {
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
        }
        return parts.allSatisfy { part in
            guard let first = part.utf8.first, isAlphanumeric(first) else { return false }
            return part.utf8.allSatisfy { isAlphanumeric($0) || "!#$&-^_.+".utf8.contains($0) }
        }
    }

    /// The field in which `other` differs in what is uploaded (not in how it is chunked), if any.
    func identityDifference(from other: UploadDeclaration) -> String? {
        if recordId != other.recordId { return "recordId" }
        if collection != other.collection { return "collection" }
        if contentType != other.contentType { return "contentType" }
        if totalBytes != other.totalBytes { return "totalBytes" }
        if sha256 != other.sha256 { return "sha256" }
        return nil
    }

    /// Whether `other` cuts the file into the same chunks with the same declared digests.
    func sameChunking(as other: UploadDeclaration) -> Bool {
        chunkBytes == other.chunkBytes && chunkCount == other.chunkCount && chunkSha256 == other.chunkSha256
    }
}
