import Foundation
import Postgres
import SyncEngine
import Testing

@Suite("Upload sessions expire after inactivity", .serialized)
struct AttachmentExpiryTests {
    /// Moves a session's expiry into the past, as `uploadSessionHours` without activity would.
    static func age(_ server: AttachmentTestServer, _ attId: String) throws {
        try server.database.withConnection { connection in
            _ = try connection.execute(
                """
                UPDATE attachments SET expires_at = now() - interval '1 minute', last_activity_at = now() - interval '73 hours'
                WHERE att_id = \(attId)
                """)
        }
    }

    @Test("Calls on an expired session answer 410; registering again starts a fresh session and drops the old chunks")
    func expiredSession() async throws {
        let server = try await AttachmentTestServer.start()
        defer { server.stop() }
        let device = try server.device()
        let file = AttachmentUploadTests.photo
        #expect(try await device.register("att-1", file).status == 200)
        for index in 0...1 { #expect(try await device.put("att-1", file, chunk: index).status == 200) }
        #expect(server.files(in: "uploads").count == 1)
        try Self.age(server, "att-1")
        for answer in [
            try await device.put("att-1", file, chunk: 2), try await device.finalize("att-1"), try await device.status("att-1"),
        ] {
            #expect(answer.status == 410 && answer.errorCode == "UPLOAD_EXPIRED", "\(answer)")
        }
        let fresh = try await device.register("att-1", file)
        #expect(fresh.status == 200 && fresh.json["receivedChunks"] as? [Int] == [], "\(fresh)")
        #expect(server.files(in: "uploads").isEmpty)
        #expect(try server.column("SELECT count(*)::text FROM attachment_chunks") == ["0"])
    }

    @Test(
        "Activity keeps a session alive: each chunk moves its expiry uploadSessionHours ahead (a stored value below 72 counts as 72)",
        arguments: [(100, "100"), (5, "72")])
    func activityExtends(stored: Int, expected: String) async throws {
        let server = try await AttachmentTestServer.start { $0.uploadSessionHours = stored }
        defer { server.stop() }
        let device = try server.device()
        let file = AttachmentUploadTests.photo
        #expect(try await device.register("att-1", file).status == 200)
        try server.database.withConnection { connection in
            _ = try connection.execute("UPDATE attachments SET expires_at = now() + interval '1 minute'")
        }
        #expect(try await device.put("att-1", file, chunk: 0).status == 200)
        let hours = try server.column("SELECT round(extract(epoch FROM expires_at - now()) / 3600)::text FROM attachments")
        #expect(hours == [expected])
    }

    @Test("Any registration sweeps other devices' expired sessions with their chunks; complete ones stay")
    func sweeps() async throws {
        let server = try await AttachmentTestServer.start()
        defer { server.stop() }
        let ana = try server.device()
        let bo = try server.device()
        let file = AttachmentUploadTests.photo
        #expect(try await ana.register("att-stale", file).status == 200)
        #expect(try await ana.put("att-stale", file, chunk: 0).status == 200)
        try await ana.upload("att-done", TestFile(size: 1000, seed: 3))
        try Self.age(server, "att-stale")
        #expect(try await bo.register("att-bo", TestFile(size: 1000, seed: 4)).status == 200)
        #expect(try server.column("SELECT att_id FROM attachments ORDER BY att_id") == ["att-bo", "att-done"])
        #expect(server.files(in: "uploads").isEmpty)
    }
}
