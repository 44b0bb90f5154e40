import Foundation
import Storage
import SyncEngine
import SyncProtocol
import Testing

/// A file as a device cuts it for upload: chunks of `chunkBytes`, the last one shorter.
struct TestFile {
    let data: Data
    let chunkBytes: Int
    let sha256: String
    let chunks: [Data]
    let chunkSha256: [String]

    /// Deterministic, non-repeating bytes (a different `seed` gives a different file).
    init(size: Int, chunkBytes: Int = 64 << 10, seed: UInt32 = 1) {
        var state = seed &* 2_654_435_761 | 1
        var bytes = [UInt8](repeating: 0, count: size)
        for index in bytes.indices {
            state ^= state << 13
            state ^= state >> 17
            state ^= state << 5
            bytes[index] = UInt8(truncatingIfNeeded: state)
        }
        data = Data(bytes)
        self.chunkBytes = chunkBytes
        sha256 = digest(data)
        chunks = stride(from: 0, to: size, by: chunkBytes).map { Data(bytes[$0..<min($0 + chunkBytes, size)]) }
        chunkSha256 = chunks.map(digest)
    }
}

/// The SHA-256 of `data` in lowercase hex, through the server's own file digest.
func digest(_ data: Data) -> String {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("fieldsync-digest-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: url) }
    do {
        try data.write(to: url)
        return try FileDigest.sha256(of: url).hex
    } catch {
        Issue.record("cannot hash: \(error)")
        return ""
    }
}

/// A logged-in device talking to the attachment endpoints.
struct TestDevice {
    let server: AttachmentTestServer
    let user: UserAccount
    let deviceId: String
    let token: String

    /// `POST /v1/attachments`; `changes` override or add fields of the registration JSON.
    func register(
        _ attId: String, _ file: TestFile, recordId: String = "pu-1", collection: String = "part_usage", withChunkList: Bool = false,
        changes: [String: Any] = [:]
    ) async throws -> HTTPAnswer {
        var body: [String: Any] = [
            "attId": attId, "recordId": recordId, "collection": collection, "contentType": "image/jpeg",
            "totalBytes": file.data.count, "chunkBytes": file.chunkBytes, "chunkCount": file.chunks.count, "sha256": file.sha256,
        ]
        if withChunkList { body["chunkSha256"] = file.chunkSha256 }
        body.merge(changes) { _, new in new }
        return try await server.send(
            "POST", "/v1/attachments", body: try JSONSerialization.data(withJSONObject: body), headers: ["Content-Type": "application/json"],
            token: token)
    }

    /// `PUT …/chunks/{index}` with `bytes`, announcing `sha256` (their own digest by default).
    func put(_ attId: String, _ index: String, _ bytes: Data, sha256: String? = nil) async throws -> HTTPAnswer {
        try await server.send(
            "PUT", "/v1/attachments/\(attId)/chunks/\(index)", body: bytes,
            headers: ["X-Chunk-SHA256": sha256 ?? digest(bytes), "Content-Type": "application/octet-stream"], token: token)
    }

    func put(_ attId: String, _ file: TestFile, chunk index: Int) async throws -> HTTPAnswer {
        try await put(attId, String(index), file.chunks[index])
    }

    func finalize(_ attId: String, chunkSha256: [String]? = nil) async throws -> HTTPAnswer {
        let body = try chunkSha256.map { try JSONSerialization.data(withJSONObject: ["chunkSha256": $0]) }
        return try await server.send(
            "POST", "/v1/attachments/\(attId)/finalize", body: body, headers: body == nil ? [:] : ["Content-Type": "application/json"],
            token: token)
    }

    func status(_ attId: String) async throws -> HTTPAnswer {
        try await server.send("GET", "/v1/attachments/\(attId)", token: token)
    }

    /// `GET …/content`, with `query` (e.g. the record's `collection` and `recordId`) when given.
    func content(_ attId: String, query: String? = nil, headers: [String: String] = [:]) async throws -> HTTPAnswer {
        try await server.send("GET", "/v1/attachments/\(attId)/content" + (query.map { "?" + $0 } ?? ""), headers: headers, token: token)
    }

    /// Registers, sends every chunk and finalizes, expecting success at each step.
    func upload(_ attId: String, _ file: TestFile, recordId: String = "pu-1") async throws {
        let registered = try await register(attId, file, recordId: recordId)
        try #require(registered.status == 200, "\(registered)")
        for index in file.chunks.indices {
            let stored = try await put(attId, file, chunk: index)
            try #require(stored.status == 200, "\(stored)")
        }
        let finalized = try await finalize(attId)
        try #require(finalized.status == 200, "\(finalized)")
    }
}
