import App
import Foundation
import Postgres
import Storage
import SyncEngine
import SyncProtocol
import Testing

/// Attachments reachable only by their owners: `dependsOn` binds to the op's own record, and
/// a known SHA-256 lends nobody a blob. Over HTTP against PostgreSQL.
@Suite("Attachment ownership", .serialized)
struct AttachmentOwnershipTests {
    @Test("dependsOn is satisfied only by an attachment registered for the op's own record")
    func dependencyOfSameRecord() async throws {
        let server = try await AttachmentTestServer.start()
        defer { server.stop() }
        let ana = try server.device(team: "north")
        try await ana.upload("att-1", TestFile(size: 70_000), recordId: "pu-other")

        let result = try await AttachmentDependencyTests.pushPartUsage(ana, recordId: "pu-1", attId: "att-1", clientSeq: 1)

        #expect(result["status"] as? String == "deferred" && result["code"] as? String == "DEPENDENCY_PENDING", "\(result)")
        #expect(result["missing"] as? [String] == ["att-1"])
        #expect(try server.column("SELECT record_id FROM records WHERE record_id = 'pu-1'").isEmpty)
        try await ana.upload("att-2", TestFile(size: 70_000, seed: 2), recordId: "pu-2")
        let own = try await AttachmentDependencyTests.pushPartUsage(ana, recordId: "pu-2", attId: "att-2", clientSeq: 2)
        #expect(own["status"] as? String == "applied", "\(own)")
    }

    @Test("A download resolves the attachment by its record: the same attId on two records, each scope-checked on its own")
    func downloadByRecord() async throws {
        let server = try await AttachmentTestServer.start()
        defer { server.stop() }
        let ana = try server.device(team: "north")
        let carla = try server.device(team: "south")
        let (north, south) = (TestFile(size: 70_000, seed: 3), TestFile(size: 70_000, seed: 4))
        try AttachmentDownloadTests.insertRecord(server, "pu-north", user: ana.user.id, team: "north")
        try AttachmentDownloadTests.insertRecord(server, "pu-south", user: carla.user.id, team: "south")
        try await carla.upload("att-same", south, recordId: "pu-south")
        try await ana.upload("att-same", north, recordId: "pu-north")
        let dispatcher = try server.device(role: .dispatcher, team: nil)

        for (record, file) in [("pu-north", north), ("pu-south", south)] {
            let answer = try await dispatcher.content("att-same", query: "collection=part_usage&recordId=\(record)")
            #expect(answer.status == 200 && answer.body == file.data, "\(record): \(answer)")
        }
        let teammate = try server.device(team: "north")
        #expect(try await teammate.content("att-same", query: "collection=part_usage&recordId=pu-north").body == north.data)
        #expect(try await teammate.content("att-same", query: "collection=part_usage&recordId=pu-south").status == 404)
        #expect(try await teammate.content("att-same").body == north.data, "without a record: the one the caller may read")
        for query in ["collection=part_usage", "recordId=pu-north", "collection=part_usage&recordId=a%20b"] {
            let refused = try await teammate.content("att-same", query: query)
            #expect(refused.status == 400 && refused.errorCode == "VALIDATION_FAILED", "\(query): \(refused)")
        }
    }

    @Test("Knowing a file's sha256 lends no blob: another user uploads the bytes, and no stored size is revealed")
    func noBlobByDigest() async throws {
        let server = try await AttachmentTestServer.start()
        defer { server.stop() }
        let ana = try server.device(team: "north")
        let file = TestFile(size: 150_000)
        try await ana.upload("att-ana", file, recordId: "pu-ana")
        let carla = try server.device(team: "south")

        let claimed = try await carla.register("att-c", file, recordId: "pu-c")
        #expect(claimed.status == 200 && claimed.json["status"] as? String == "uploading", "\(claimed)")
        let stolen = try await carla.content("att-c")
        #expect(stolen.status == 409 && stolen.errorCode == "UPLOAD_INCOMPLETE" && stolen.body != file.data)
        let probe = try await carla.register("att-probe", file, recordId: "pu-c", changes: ["totalBytes": 1_000, "chunkCount": 1])
        #expect(probe.status == 200 && probe.json["status"] as? String == "uploading", "\(probe)")
        #expect(!String(decoding: probe.body, as: UTF8.self).contains(String(file.data.count)))

        try await carla.upload("att-c", file, recordId: "pu-c")
        #expect(try await carla.content("att-c").body == file.data, "the bytes carla sent herself")
        #expect(server.files(in: "blobs").count == 1, "stored once all the same")
    }

    @Test("A user who may already read a blob reuses it at once: the uploader's other device, a teammate who sees its record")
    func reuseWhenReadable() async throws {
        let server = try await AttachmentTestServer.start()
        defer { server.stop() }
        let ana = try server.device(team: "north")
        let file = TestFile(size: 100_000)
        try AttachmentDownloadTests.insertRecord(server, "pu-north", user: ana.user.id, team: "north")
        try await ana.upload("att-ana", file, recordId: "pu-north")

        for reader in [try server.device(of: ana.user), try server.device(team: "north")] {
            let answer = try await reader.register("att-again", file, recordId: "pu-new")
            #expect(answer.json["status"] as? String == "complete", "\(reader.user.username): \(answer)")
        }
        let sibling = try server.device(of: ana.user)
        let mismatch = try await sibling.register("att-size", file, recordId: "pu-new", changes: ["totalBytes": 1_000, "chunkCount": 1])
        #expect(mismatch.status == 400 && mismatch.details["field"] as? String == "totalBytes", "\(mismatch)")
        #expect(!String(decoding: mismatch.body, as: UTF8.self).contains(String(file.data.count)))
    }
}
