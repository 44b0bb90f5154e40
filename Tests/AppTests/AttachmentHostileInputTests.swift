import App
import Foundation
import Postgres
import Storage
import SyncEngine
import Testing

@Suite("Attachment endpoints refuse hostile input precisely and write nothing", .serialized)
struct AttachmentHostileInputTests {
    /// Whether nothing at all was stored: no session rows, chunk files or blobs.
    static func nothingWritten(_ server: AttachmentTestServer) throws -> Bool {
        try server.column("SELECT count(*)::text FROM attachments") == ["0"] && server.files(in: "uploads").isEmpty
            && server.files(in: "blobs").isEmpty
    }

    @Test(
        "Registrations with malformed or absurd fields answer 400 naming the field",
        arguments: [
            ("attId", ["attId": "../../etc/passwd"]), ("attId", ["attId": ""]), ("attId", ["attId": String(repeating: "a", count: 129)]),
            ("recordId", ["recordId": "a/b"]), ("collection", ["collection": "no_such_collection"]),
            ("contentType", ["contentType": "text/html; charset=utf-8"]), ("contentType", ["contentType": "../x"]),
            ("totalBytes", ["totalBytes": -1]), ("totalBytes", ["totalBytes": 0]),
            ("chunkBytes", ["chunkBytes": 1]), ("chunkBytes", ["chunkBytes": 8 << 20]), ("chunkCount", ["chunkCount": 3]),
            ("chunkCount", ["chunkCount": -20]), ("sha256", ["sha256": "xyz"]), ("chunkSha256", ["chunkSha256": ["00"]]),
        ] as [(String, [String: any Sendable])])
    func refusesMalformedRegistration(field: String, changes: [String: any Sendable]) async throws {
        let server = try await AttachmentTestServer.start()
        defer { server.stop() }
        let answer = try await server.device().register("att-1", AttachmentUploadTests.photo, changes: changes)
        #expect(answer.status == 400 && answer.errorCode == "VALIDATION_FAILED", "\(answer)")
        #expect(answer.details["field"] as? String == field, "\(answer)")
        #expect(try Self.nothingWritten(server))
    }

    @Test("A size that overflows a 64-bit integer is refused as invalid before anything else")
    func refusesOverflowingSize() async throws {
        let server = try await AttachmentTestServer.start()
        defer { server.stop() }
        // The JSON decoder reports a number out of range without its path, so no details.field here.
        let answer = try await server.device().register("att-1", AttachmentUploadTests.photo, changes: ["totalBytes": 1e30])
        #expect(answer.status == 400 && answer.errorCode == "VALIDATION_FAILED", "\(answer)")
        #expect(try Self.nothingWritten(server))
    }

    @Test("The largest 64-bit size is refused by its chunk count, not by an overflow that would stop the server")
    func refusesLargestSize() async throws {
        let server = try await AttachmentTestServer.start()
        defer { server.stop() }
        let answer = try await server.device().register("att-1", AttachmentUploadTests.photo, changes: ["totalBytes": Int64.max])
        #expect(answer.status == 400 && answer.errorCode == "VALIDATION_FAILED" && answer.details["field"] as? String == "chunkCount", "\(answer)")
        #expect(try Self.nothingWritten(server))
        #expect(try await server.device().register("att-2", AttachmentUploadTests.photo).status == 200, "the server still serves")
    }

    @Test("Files over maxAttachmentBytes, or over the record's total, are refused with 413")
    func refusesTooLarge() async throws {
        let server = try await AttachmentTestServer.start { $0.maxAttachmentBytesPerRecord = 500_000 }
        defer { server.stop() }
        let device = try server.device()
        let huge = try await device.register(
            "att-huge", AttachmentUploadTests.photo,
            changes: ["totalBytes": 1_000_000_000_000_000, "chunkBytes": 4 << 20, "chunkCount": 238_418_580])
        #expect(huge.status == 413 && huge.errorCode == "ATTACHMENT_TOO_LARGE" && huge.details["limit"] as? Int == 52_428_800, "\(huge)")
        #expect(try Self.nothingWritten(server))
        #expect(try await device.register("att-a", TestFile(size: 300_000)).status == 200)
        let over = try await device.register("att-b", TestFile(size: 300_000, seed: 2))
        #expect(over.status == 413 && over.details["scope"] as? String == "record", "\(over)")
        #expect(try server.column("SELECT att_id FROM attachments") == ["att-a"])
    }

    @Test(
        "Chunk indexes that are negative, overflowing, signed or out of range answer 400",
        arguments: [
            "-1", "99999999999999999999", "+1", "1e3", "0x1", "20",
        ])
    func refusesBadIndex(index: String) async throws {
        let server = try await AttachmentTestServer.start()
        defer { server.stop() }
        let device = try server.device()
        #expect(try await device.register("att-1", AttachmentUploadTests.photo).status == 200)
        let answer = try await device.put("att-1", index, AttachmentUploadTests.photo.chunks[0])
        #expect(answer.status == 400 && answer.details["field"] as? String == "index", "\(answer)")
        #expect(server.files(in: "uploads").isEmpty)
    }

    @Test("Chunks longer than chunkBytes, short chunks, a wrong last chunk and bodies over 4 MiB are refused")
    func refusesWrongSizes() async throws {
        let server = try await AttachmentTestServer.start()
        defer { server.stop() }
        let device = try server.device()
        let file = AttachmentUploadTests.photo
        #expect(try await device.register("att-1", file).status == 200)
        for (index, bytes) in [
            ("0", file.chunks[0] + Data([1])), ("1", file.chunks[1].prefix(1000)), ("19", file.chunks[19] + Data([1])),
            ("19", file.chunks[19].dropLast()), ("2", Data()),
        ] {
            let answer = try await device.put("att-1", index, Data(bytes))
            #expect(answer.status == 400 && answer.details["field"] as? String == "body", "\(answer)")
        }
        // Refused from the headers alone, before any of the body is read.
        let oversized = try server.headersOnly(
            "PUT /v1/attachments/att-1/chunks/0", headers: ["Authorization": "Bearer \(device.token)", "Content-Length": "\((4 << 20) + 1)"])
        #expect(oversized.hasPrefix("HTTP/1.1 413") && oversized.contains("PAYLOAD_TOO_LARGE"), "\(oversized)")
        let unsigned = try await server.send("PUT", "/v1/attachments/att-1/chunks/0", body: file.chunks[0], token: device.token)
        #expect(unsigned.status == 400 && unsigned.details["field"] as? String == "X-Chunk-SHA256", "\(unsigned)")
        #expect(server.files(in: "uploads").isEmpty)
        #expect(try await device.status("att-1").json["receivedChunks"] as? [Int] == [])
    }

    @Test("Path traversal in the attId never reaches the file system; dots are just a name")
    func pathTraversal() async throws {
        let server = try await AttachmentTestServer.start()
        defer { server.stop() }
        let device = try server.device()
        let file = TestFile(size: 70_000)
        let encoded = try await device.put("..%2F..%2Fetc%2Fpasswd", "0", file.chunks[0])
        #expect([400, 404].contains(encoded.status), "\(encoded)")
        let dots = try await device.register("..", file)
        #expect(dots.status == 400 && dots.details["field"] as? String == "attId", "\(dots)")
        #expect(try Self.nothingWritten(server))
        try await device.upload("...", file)
        #expect(try await device.content("...").body == file.data)
        #expect(server.files(in: "uploads").isEmpty)
        #expect(server.files(in: "blobs") == ["\(file.sha256.prefix(2))/\(file.sha256.dropFirst(2).prefix(2))/\(file.sha256)"])
    }

    @Test("Another device's session answers exactly like a missing one, and nothing is written to it")
    func otherDevicesSession() async throws {
        let server = try await AttachmentTestServer.start()
        defer { server.stop() }
        let ana = try server.device()
        let anaTablet = try server.device(of: ana.user)
        let bo = try server.device()
        let file = AttachmentUploadTests.photo
        #expect(try await ana.register("att-ana", file).status == 200)
        for intruder in [bo, anaTablet] {
            let put = try await intruder.put("att-ana", file, chunk: 0)
            let missing = try await intruder.put("att-none", file, chunk: 0)
            #expect(put.status == 404 && put.body == missing.body, "\(put)")
            #expect(try await intruder.finalize("att-ana").status == 404)
            #expect(try await intruder.status("att-ana").body == intruder.status("att-none").body)
        }
        #expect(server.files(in: "uploads").isEmpty)
        #expect(try await ana.status("att-ana").json["receivedChunks"] as? [Int] == [])
    }

    @Test("Registering for an existing record outside the caller's scope is refused with 403")
    func registerOutOfScope() async throws {
        let server = try await AttachmentTestServer.start()
        defer { server.stop() }
        try AttachmentDownloadTests.insertRecord(server, "pu-south", user: "u-someone", team: "south")
        let answer = try await server.device(team: "north").register("att-1", AttachmentUploadTests.photo, recordId: "pu-south")
        #expect(answer.status == 403 && answer.errorCode == "OUT_OF_SCOPE", "\(answer)")
        #expect(try Self.nothingWritten(server))
    }

    @Test("Calls without a valid token get 401; maintenance mode gets 503 with Retry-After; nothing is written")
    func gated() async throws {
        let server = try await AttachmentTestServer.start()
        defer { server.stop() }
        let device = try server.device()
        let file = AttachmentUploadTests.photo
        #expect(try await device.register("att-1", file).status == 200)
        let anonymous = try await server.send("PUT", "/v1/attachments/att-1/chunks/0", body: file.chunks[0], token: "forged")
        #expect(anonymous.status == 401 && anonymous.errorCode == "UNAUTHENTICATED")
        var settings = try server.application.core.settings.current()
        settings.maintenanceMode = true
        try server.application.core.settings.update(settings, by: nil)
        let closed = try await device.put("att-1", file, chunk: 0)
        #expect(closed.status == 503 && closed.errorCode == "MAINTENANCE" && closed.headers["retry-after"] != nil, "\(closed)")
        #expect(server.files(in: "uploads").isEmpty)
    }

    @Test("A device may hold at most 100 open sessions")
    func sessionCap() async throws {
        let server = try await AttachmentTestServer.start()
        defer { server.stop() }
        let device = try server.device()
        for number in 0..<AttachmentService.maxOpenSessionsPerDevice {
            let answer = try await device.register("att-\(number)", TestFile(size: 100, seed: UInt32(number + 1)), recordId: "pu-\(number)")
            try #require(answer.status == 200, "\(answer)")
        }
        let refused = try await device.register("att-100", TestFile(size: 100, seed: 500), recordId: "pu-100")
        #expect(refused.status == 429 && refused.errorCode == "TOO_MANY_UPLOADS" && refused.headers["retry-after"] != nil, "\(refused)")
        // Resuming an existing session is still allowed.
        let resumed = try await device.register("att-7", TestFile(size: 100, seed: 8), recordId: "pu-7")
        #expect(resumed.status == 200, "\(resumed)")
    }

    @Test("A user may hold at most 200 open sessions over all their devices")
    func sessionCapPerUser() async throws {
        let server = try await AttachmentTestServer.start()
        defer { server.stop() }
        let first = try server.device()
        let devices = [first, try server.device(of: first.user), try server.device(of: first.user)]
        var registered = 0
        for device in devices.prefix(2) {
            for _ in 0..<AttachmentService.maxOpenSessionsPerDevice {
                registered += 1
                let answer = try await device.register(
                    "att-\(registered)", TestFile(size: 100, seed: UInt32(registered)), recordId: "pu-\(registered)")
                try #require(answer.status == 200, "\(answer)")
            }
        }
        let refused = try await devices[2].register("att-extra", TestFile(size: 100, seed: 9_999), recordId: "pu-extra")
        #expect(refused.status == 429 && refused.errorCode == "TOO_MANY_UPLOADS" && refused.headers["retry-after"] != nil, "\(refused)")
        #expect(refused.details["scope"] as? String == "user")
        #expect(refused.details["limit"] as? Int == AttachmentService.maxOpenSessionsPerUser)
    }
}
