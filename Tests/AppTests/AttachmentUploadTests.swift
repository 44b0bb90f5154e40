import Foundation
import Postgres
import Testing

@Suite("Resumable attachment uploads over HTTP", .serialized)
struct AttachmentUploadTests {
    /// 20 chunks of 64 KiB, the last one 1000 bytes.
    static let photo = TestFile(size: 19 * 65_536 + 1000)

    @Test("An upload interrupted at 60% resumes: re-registering lists chunks 0-11 and only 12-19 are sent")
    func resumesAfterFailure() async throws {
        let server = try await AttachmentTestServer.start()
        defer { server.stop() }
        let device = try server.device()
        let file = Self.photo
        let first = try await device.register("att-resume", file, withChunkList: true)
        #expect(first.status == 200, "\(first)")
        #expect(first.json["status"] as? String == "uploading")
        #expect(first.json["receivedChunks"] as? [Int] == [])
        #expect(first.json["uploadUrl"] as? String == "/v1/attachments/att-resume/chunks")
        #expect(first.json["expiresAt"] is String)
        for index in 0...11 { #expect(try await device.put("att-resume", file, chunk: index).status == 200) }

        // The app was killed; on restart it registers again and sends what is missing.
        let resumed = try await device.register("att-resume", file, withChunkList: true)
        let received = try #require(resumed.json["receivedChunks"] as? [Int])
        #expect(received == Array(0...11))
        for index in Set(0..<20).subtracting(received).sorted() {
            #expect(try await device.put("att-resume", file, chunk: index).status == 200)
        }
        let finalized = try await device.finalize("att-resume")
        #expect(finalized.status == 200, "\(finalized)")
        #expect(finalized.json["status"] as? String == "complete" && finalized.json["sha256"] as? String == file.sha256)
        #expect(try await device.content("att-resume").body == file.data)
        // The chunks are gone; the blob is stored once under its digest.
        #expect(server.files(in: "uploads").isEmpty)
        #expect(server.files(in: "blobs") == ["\(file.sha256.prefix(2))/\(file.sha256.dropFirst(2).prefix(2))/\(file.sha256)"])
    }

    @Test("A chunk corrupted in transit is refused at PUT with 422 and not stored")
    func corruptInTransit() async throws {
        let server = try await AttachmentTestServer.start()
        defer { server.stop() }
        let device = try server.device()
        let file = Self.photo
        #expect(try await device.register("att-transit", file).status == 200)
        var damaged = file.chunks[3]
        damaged[100] ^= 0xFF
        let refused = try await device.put("att-transit", "3", damaged, sha256: file.chunkSha256[3])
        #expect(refused.status == 422 && refused.errorCode == "CHUNK_CHECKSUM_MISMATCH", "\(refused)")
        #expect(refused.details["expected"] as? String == file.chunkSha256[3])
        #expect(try await device.status("att-transit").json["receivedChunks"] as? [Int] == [])
        #expect(server.files(in: "uploads").isEmpty)
        // Re-sent intact, it is stored.
        #expect(try await device.put("att-transit", file, chunk: 3).status == 200)
        #expect(try await device.status("att-transit").json["receivedChunks"] as? [Int] == [3])
    }

    @Test("A chunk that contradicts the digest registered for it is refused even when the header matches it")
    func registeredDigestWins() async throws {
        let server = try await AttachmentTestServer.start()
        defer { server.stop() }
        let device = try server.device()
        let file = Self.photo
        #expect(try await device.register("att-listed", file, withChunkList: true).status == 200)
        var damaged = file.chunks[5]
        damaged[0] ^= 1
        let refused = try await device.put("att-listed", "5", damaged)
        #expect(refused.status == 422 && refused.errorCode == "CHUNK_CHECKSUM_MISMATCH", "\(refused)")
        #expect(server.files(in: "uploads").isEmpty)
    }

    @Test("A chunk corrupted on the device before hashing passes PUT; finalize names only chunk 7, and re-sending it completes")
    func corruptOnDevice() async throws {
        let server = try await AttachmentTestServer.start()
        defer { server.stop() }
        let device = try server.device()
        let file = Self.photo
        #expect(try await device.register("att-device", file).status == 200)
        var damaged = file.chunks[7]
        damaged[12_345] ^= 0x40
        for index in file.chunks.indices {
            // The device hashes what it read, damage included: the server cannot tell yet.
            let answer = try await device.put("att-device", String(index), index == 7 ? damaged : file.chunks[index])
            #expect(answer.status == 200, "\(answer)")
        }
        let failed = try await device.finalize("att-device", chunkSha256: file.chunkSha256)
        #expect(failed.status == 422 && failed.errorCode == "FILE_CHECKSUM_MISMATCH", "\(failed)")
        #expect(failed.details["suspectChunks"] as? [Int] == [7])
        #expect(try await device.status("att-device").json["receivedChunks"] as? [Int] == Array(0..<20).filter { $0 != 7 })
        #expect(try await device.put("att-device", file, chunk: 7).status == 200)
        let finalized = try await device.finalize("att-device")
        #expect(finalized.status == 200, "\(finalized)")
        #expect(try await device.content("att-device").body == file.data)
    }

    @Test("Without any chunk list, a whole-file mismatch makes every chunk suspect")
    func everyChunkSuspectWithoutList() async throws {
        let server = try await AttachmentTestServer.start()
        defer { server.stop() }
        let device = try server.device()
        let file = TestFile(size: 3 * 65_536)
        #expect(try await device.register("att-nolist", file).status == 200)
        var damaged = file.chunks[1]
        damaged[1] ^= 1
        for (index, bytes) in [file.chunks[0], damaged, file.chunks[2]].enumerated() {
            #expect(try await device.put("att-nolist", String(index), bytes).status == 200)
        }
        let failed = try await device.finalize("att-nolist")
        #expect(failed.status == 422 && failed.details["suspectChunks"] as? [Int] == [0, 1, 2], "\(failed)")
        #expect(try await device.status("att-nolist").json["receivedChunks"] as? [Int] == [])
    }

    @Test("Finalize with chunks missing answers 409 with the missing indexes; finalizing twice gives the same answer")
    func finalizeRules() async throws {
        let server = try await AttachmentTestServer.start()
        defer { server.stop() }
        let device = try server.device()
        let file = TestFile(size: 4 * 65_536 + 10)
        #expect(try await device.register("att-twice", file).status == 200)
        for index in [0, 2] { #expect(try await device.put("att-twice", file, chunk: index).status == 200) }
        let early = try await device.finalize("att-twice")
        #expect(early.status == 409 && early.errorCode == "CHUNKS_MISSING" && early.details["missing"] as? [Int] == [1, 3, 4], "\(early)")
        for index in [1, 3, 4] { #expect(try await device.put("att-twice", file, chunk: index).status == 200) }
        let once = try await device.finalize("att-twice")
        let twice = try await device.finalize("att-twice")
        #expect(once.status == 200 && twice.status == 200)
        #expect(once.body == twice.body)
        // A chunk re-sent after completion is harmless and writes nothing.
        #expect(try await device.put("att-twice", file, chunk: 0).status == 200)
        #expect(server.files(in: "uploads").isEmpty)
        let status = try await device.status("att-twice")
        #expect(status.json["status"] as? String == "complete" && status.json["sha256"] as? String == file.sha256)
        let events = try server.column("SELECT data->>'attId' FROM events WHERE type = 'attachment.completed'")
        #expect(events == ["att-twice"])
    }

    @Test("The same photo from two devices of a user is stored once; the second registration completes at once")
    func deduplicatesAcrossDevices() async throws {
        let server = try await AttachmentTestServer.start()
        defer { server.stop() }
        let ana = try server.device()
        let bo = try server.device(of: ana.user)
        let file = Self.photo
        try await ana.upload("att-ana", file)
        let second = try await bo.register("att-bo", file, recordId: "pu-2")
        #expect(second.status == 200, "\(second)")
        #expect(second.json["status"] as? String == "complete" && second.json["sha256"] as? String == file.sha256)
        #expect(second.json["uploadUrl"] == nil && second.json["receivedChunks"] == nil)
        #expect(try await bo.finalize("att-bo").json["status"] as? String == "complete")
        #expect(try await bo.content("att-bo").body == file.data)
        #expect(server.files(in: "blobs").count == 1)
        #expect(try server.column("SELECT sha256 FROM blobs") == [file.sha256])
        #expect(try server.column("SELECT att_id FROM attachments WHERE blob_sha256 IS NOT NULL ORDER BY att_id") == ["att-ana", "att-bo"])
    }

    @Test("Chunks re-sent with other bytes while finalize runs never alter the stored blob")
    func chunkWritesDuringFinalize() async throws {
        let server = try await AttachmentTestServer.start()
        defer { server.stop() }
        let device = try server.device()
        let file = TestFile(size: 8 * 65_536)
        var other = file.chunks[0]
        other[0] ^= 0xFF
        #expect(try await device.register("att-race", file).status == 200)
        for index in file.chunks.indices { #expect(try await device.put("att-race", file, chunk: index).status == 200) }
        async let resends: Void = {
            for round in 0..<20 {
                _ = try await device.put("att-race", "0", round.isMultiple(of: 2) ? other : file.chunks[0])
            }
            _ = try await device.put("att-race", file, chunk: 0)
        }()
        var finalized = try await device.finalize("att-race")
        try await resends
        while finalized.status == 422 {
            #expect(finalized.details["suspectChunks"] != nil)
            // Without a chunk list every chunk is suspect when a finalize met chunk 0's other
            // bytes; the suspects are dropped, so all of them are sent again (PROTOCOL.md).
            for index in finalized.details["suspectChunks"] as? [Int] ?? [] {
                _ = try await device.put("att-race", file, chunk: index)
            }
            finalized = try await device.finalize("att-race")
        }
        #expect(finalized.status == 200, "\(finalized)")
        let blob = server.dataDirectory.appendingPathComponent("blobs/\(file.sha256.prefix(2))/\(file.sha256.dropFirst(2).prefix(2))/\(file.sha256)")
        #expect(digest(try Data(contentsOf: blob)) == file.sha256)
        #expect(try await device.content("att-race").body == file.data)
    }

    @Test("Registering again with other chunking restarts the session; with another file it is refused")
    func reRegistration() async throws {
        let server = try await AttachmentTestServer.start()
        defer { server.stop() }
        let device = try server.device()
        let file = TestFile(size: 300_000)
        #expect(try await device.register("att-again", file).status == 200)
        #expect(try await device.put("att-again", file, chunk: 0).status == 200)
        let rechunked = TestFile(size: 300_000, chunkBytes: 128 << 10)
        let restarted = try await device.register("att-again", rechunked)
        #expect(restarted.status == 200 && restarted.json["receivedChunks"] as? [Int] == [], "\(restarted)")
        #expect(server.files(in: "uploads").isEmpty)
        let other = try await device.register("att-again", TestFile(size: 300_000, seed: 9))
        #expect(other.status == 409 && other.errorCode == "ATTACHMENT_MISMATCH" && other.details["field"] as? String == "sha256", "\(other)")
    }
}
