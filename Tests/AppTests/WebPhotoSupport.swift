import Foundation
import Postgres
import Testing

/// A 4 × 3 red PNG: a real image, so a browser can draw it.
let testPhotoPNG = Data(
    base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAQAAAADCAIAAAA7ljmRAAAAEElEQVR4nGM4oSEHRww4OQD+6wyplxsryQAAAABJRU5ErkJggg==")!

extension WebDevice {
    /// Registers `data` as attachment `attId` of the record and, when `finish`, sends its one
    /// chunk and finalizes it; otherwise the upload stays open.
    func upload(_ attId: String, _ data: Data, contentType: String = "image/png", collection: String, recordId: String, finish: Bool = true) throws {
        let sha256 = digest(data)
        let declaration: [String: Any] = [
            "attId": attId, "recordId": recordId, "collection": collection, "contentType": contentType,
            "totalBytes": data.count, "chunkBytes": 65_536, "chunkCount": 1, "sha256": sha256,
        ]
        let registered = try post("/v1/attachments", json: try JSONSerialization.data(withJSONObject: declaration))
        try #require(registered.status == 200, "register \(attId): \(registered.status) \(registered.body)")
        guard finish else { return }
        let chunk = try send(
            "PUT", "/v1/attachments/\(attId)/chunks/0", body: data, contentType: "application/octet-stream", headers: [("X-Chunk-SHA256", sha256)])
        try #require(chunk.status == 200, "chunk of \(attId): \(chunk.status) \(chunk.body)")
        let finalized = try post("/v1/attachments/\(attId)/finalize", json: Data("{}".utf8))
        try #require(finalized.status == 200, "finalize \(attId): \(finalized.status) \(finalized.body)")
    }
}

extension WebTestServer {
    /// The server id of attachment `attId`, the address of its photo in the back-office.
    func photoPath(_ attId: String) throws -> String {
        let id = try database.withConnection {
            try $0.query("SELECT id::text FROM attachments WHERE att_id = \(attId)")[0].decode(0, as: String.self)
        }
        return "/admin/photos/\(id)"
    }
}
