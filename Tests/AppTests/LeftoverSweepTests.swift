import App
import AppTesting
import Foundation
import SyncProtocol
import Testing

/// What a crash leaves in the data folder is swept when the server starts again (PROTOCOL.md
/// is silent; issue: crash durability): request spools, upload files of sessions that are no
/// longer open, partial blob copies and blobs no row names, the last two after a grace period.
@Suite("Starting sweeps the files a crash left behind", .serialized)
struct LeftoverSweepTests {
    @Test("A restart removes spools, closed upload files and old unreferenced blobs, and keeps everything in use")
    func restartSweeps() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("fieldsync-sweep-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: data) }
        let first = try await TestServer.start { $0.dataDirectory = data }
        let ana = try await first.device(.field, team: "north")
        let photo = Data((0..<1000).map { UInt8($0 % 7) })
        try await ana.upload(photo, attId: "att-done")
        try await Self.startTwoChunkUpload(ana)
        let spool = first.spoolDirectory
        defer { try? FileManager.default.removeItem(at: spool) }
        first.stop()
        let folders = ["spool": spool, "uploads": data.appendingPathComponent("uploads"), "blobs": data.appendingPathComponent("blobs")]
        let kept = try Self.files(in: folders)

        let old = Date(timeIntervalSinceNow: -2 * 86_400)
        let orphanOld = String(repeating: "ab", count: 32)
        let orphanNew = String(repeating: "cd", count: 32)
        let planted = [
            "spool/fieldsync-body-a1B2c3", "spool/part-\(UUID().uuidString)", "spool/chunk-\(UUID().uuidString)",
            "uploads/\(UUID().uuidString.lowercased())", "blobs/ab/ab/\(orphanOld)", "blobs/ab/ab/.partial-\(UUID().uuidString)",
            "blobs/cd/cd/\(orphanNew)", "blobs/cd/cd/.partial-\(UUID().uuidString)", "spool/notes.txt", "uploads/README",
            "spool/part-of-something-else",
        ]
        for path in planted { try Self.write(Self.url(of: path, in: folders)) }
        for path in ["blobs/ab/ab/\(orphanOld)", planted[5], "uploads/README"] {
            try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: Self.url(of: path, in: folders).path)
        }

        let second = try await TestServer.start(database: first.database) { $0.dataDirectory = data }
        defer { second.stop() }

        #expect(second.spoolDirectory == spool, "the default spool folder is the data folder's own")
        let remaining = try Self.files(in: folders)
        let expected = kept.union(["blobs/cd/cd/\(orphanNew)", planted[7], "spool/notes.txt", "uploads/README", "spool/part-of-something-else"])
        #expect(remaining == expected, "left: \(remaining.subtracting(expected)), lost: \(expected.subtracting(remaining))")
        // What stayed still serves: the finished file downloads, the open session resumes.
        let download = try await second.client.get("/v1/attachments/att-done/content", headers: ana.headers, token: ana.token)
        #expect(download.status == 200 && download.body == photo)
    }

    /// Registers a two-chunk upload and sends its first chunk: an open session with a file.
    static func startTwoChunkUpload(_ device: SyncDevice) async throws {
        let first = Data(repeating: 7, count: 65_536)
        let rest = Data(repeating: 8, count: 100)
        let register =
            #"{"attId":"att-open","recordId":"pu-2","collection":"part_usage","contentType":"image/jpeg","totalBytes":65636,"#
            + #""chunkBytes":65536,"chunkCount":2,"sha256":"\#(digest(first + rest))"}"#
        let registered = try await device.server.client.send(
            "POST", "/v1/attachments", body: Data(register.utf8), headers: device.jsonHeaders, token: device.token)
        try #require(registered.status == 200, "\(registered)")
        let put = try await device.server.client.send(
            "PUT", "/v1/attachments/att-open/chunks/0", body: first,
            headers: device.headers.merging(["X-Chunk-SHA256": digest(first)]) { $1 }, token: device.token)
        try #require(put.status == 200, "\(put)")
    }

    static func write(_ url: URL) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("left over".utf8).write(to: url)
    }

    /// `path`, whose first component names one of `folders`.
    static func url(of path: String, in folders: [String: URL]) -> URL {
        let (folder, rest) = (String(path.prefix { $0 != "/" }), path.drop { $0 != "/" }.dropFirst())
        return folders[folder]!.appendingPathComponent(String(rest))
    }

    /// Every regular file under `folders`, as `<folder name>/<path inside it>`.
    static func files(in folders: [String: URL]) throws -> Set<String> {
        var found: Set<String> = []
        for (folder, base) in folders {
            guard let walker = FileManager.default.enumerator(atPath: base.path) else { continue }
            for case let path as String in walker {
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: base.appendingPathComponent(path).path, isDirectory: &isDirectory), !isDirectory.boolValue {
                    found.insert(folder + "/" + path)
                }
            }
        }
        return found
    }
}
