import Foundation
import Postgres
import Storage
import SyncEngine
import Testing

@Suite("Finalized attachments release the ops that wait for them", .serialized)
struct AttachmentDependencyTests {
    /// Pushes the creation of a `part_usage` record whose photo is `attId`, depending on it.
    static func pushPartUsage(_ device: TestDevice, recordId: String, attId: String, clientSeq: Int) async throws -> [String: Any] {
        let op: [String: Any] = [
            "opId": "op-\(recordId)", "clientSeq": clientSeq, "collection": "part_usage", "recordId": recordId, "type": "create",
            "occurredAt": ISO8601DateFormatter().string(from: Date()), "dependsOn": [attId],
            "fields": [
                "job_id": ["old": NSNull(), "new": "job-1"], "sku": ["old": NSNull(), "new": "SKU-9"], "qty": ["old": NSNull(), "new": 2],
                "photo": ["old": NSNull(), "new": attId],
            ],
        ]
        let body = try JSONSerialization.data(withJSONObject: ["deviceId": device.deviceId, "schemaVersion": 3, "ops": [op]])
        let answer = try await device.server.send(
            "POST", "/v1/sync/push", body: body, headers: ["Content-Type": "application/json", "X-Device-Id": device.deviceId],
            token: device.token)
        try #require(answer.status == 200, "\(answer)")
        return try #require((answer.json["results"] as? [[String: Any]])?.first)
    }

    static func opStatus(_ server: AttachmentTestServer, _ opId: String) throws -> [String?] {
        try server.column("SELECT status FROM op_log WHERE op_id = \(opId)")
    }

    @Test("An op deferred on an attachment applies when the upload is finalized, and its record scopes the download")
    func finalizeReleases() async throws {
        let server = try await AttachmentTestServer.start()
        defer { server.stop() }
        let ana = try server.device(team: "north")
        let file = TestFile(size: 150_000)
        let deferred = try await Self.pushPartUsage(ana, recordId: "pu-1", attId: "att-1", clientSeq: 1)
        #expect(deferred["status"] as? String == "deferred" && deferred["code"] as? String == "DEPENDENCY_PENDING", "\(deferred)")
        #expect(try PostgresAttachmentStore(database: server.database).finalized(among: ["att-1"], deviceId: nil).isEmpty)

        try await ana.upload("att-1", file, recordId: "pu-1")
        #expect(try Self.opStatus(server, "op-pu-1") == ["applied"])
        #expect(try server.column("SELECT payload->>'photo' FROM records WHERE record_id = 'pu-1'") == ["att-1"])
        // The record now exists in team north: a teammate may read the photo, another team may not.
        #expect(try await server.device(team: "north").content("att-1").body == file.data)
        #expect(try await server.device(team: "south").content("att-1").status == 404)
    }

    @Test("A registration completed by deduplication releases the waiting op at once")
    func deduplicationReleases() async throws {
        let server = try await AttachmentTestServer.start()
        defer { server.stop() }
        let ana = try server.device()
        let bo = try server.device(of: ana.user)
        let file = TestFile(size: 100_000)
        try await ana.upload("att-ana", file, recordId: "pu-a")
        let deferred = try await Self.pushPartUsage(bo, recordId: "pu-b", attId: "att-bo", clientSeq: 1)
        #expect(deferred["status"] as? String == "deferred", "\(deferred)")
        let registered = try await bo.register("att-bo", file, recordId: "pu-b")
        #expect(registered.json["status"] as? String == "complete", "\(registered)")
        #expect(try Self.opStatus(server, "op-pu-b") == ["applied"])
        #expect(try server.column("SELECT count(*)::text FROM events WHERE type = 'attachment.completed'") == ["2"])
    }

    @Test("finalized(among:deviceId:) lists complete attachments only, of one device or of any")
    func finalizedLookup() async throws {
        let server = try await AttachmentTestServer.start()
        defer { server.stop() }
        let ana = try server.device()
        try await ana.upload("att-done", TestFile(size: 1000))
        #expect(try await ana.register("att-open", TestFile(size: 1000, seed: 5)).status == 200)
        let store = PostgresAttachmentStore(database: server.database)
        let ids = ["att-done", "att-open", "att-unknown"]
        #expect(try store.finalized(among: ids, deviceId: nil) == ["att-done"])
        #expect(try store.finalized(among: ids, deviceId: ana.deviceId) == ["att-done"])
        #expect(try store.finalized(among: ids, deviceId: "another-device").isEmpty)
        #expect(try store.finalized(among: [], deviceId: nil).isEmpty)
    }
}
