import Foundation
import Postgres
import SyncEngine
import SyncProtocol
import Testing

@Suite("Attachment downloads: scope, ranges, ETag", .serialized)
struct AttachmentDownloadTests {
    /// Writes a record row the way the sync store does (scope columns `user:<id>`, `team:<id>`), at
    /// the current schema version: the record-migration job would otherwise upgrade it and derive
    /// its scopes from the empty payload.
    static func insertRecord(_ server: AttachmentTestServer, _ recordId: String, user: String?, team: String?) throws {
        try server.database.withConnection { connection in
            _ = try connection.execute(
                """
                INSERT INTO records (collection, record_id, payload, field_meta, server_seq, user_scope, team_scope, schema_version)
                VALUES ('part_usage', \(recordId), '{}', '{}', (SELECT coalesce(max(server_seq), 0) + 1 FROM records),
                        \(user.map { "user:" + $0 }), \(team.map { "team:" + $0 }), 3)
                """)
        }
    }

    @Test("Who may download follows the record's scope: team, own user, supervisors of the team, office roles")
    func scopeOfExistingRecord() async throws {
        let server = try await AttachmentTestServer.start()
        defer { server.stop() }
        let ana = try server.device(team: "north")
        let file = TestFile(size: 70_000)
        try Self.insertRecord(server, "pu-north", user: ana.user.id, team: "north")
        try await ana.upload("att-1", file, recordId: "pu-north")
        let readers = [
            try server.device(team: "north"), try server.device(of: ana.user), try server.device(role: .supervisor, team: "north"),
            try server.device(role: .dispatcher, team: nil), try server.device(role: .admin, team: nil),
        ]
        for reader in readers {
            let answer = try await reader.content("att-1")
            #expect(answer.status == 200 && answer.body == file.data, "\(reader.user.role) \(answer)")
        }
        for outsider in [try server.device(team: "south"), try server.device(role: .supervisor, team: "south")] {
            let answer = try await outsider.content("att-1")
            #expect(answer.status == 404 && answer.errorCode == "NOT_FOUND", "\(outsider.user.role) \(answer)")
        }
    }

    @Test("Before its record exists, an attachment is readable only by its uploader and office roles")
    func scopeWithoutRecord() async throws {
        let server = try await AttachmentTestServer.start()
        defer { server.stop() }
        let ana = try server.device(team: "north")
        let file = TestFile(size: 70_000)
        try await ana.upload("att-1", file, recordId: "pu-future")
        #expect(try await server.device(of: ana.user).content("att-1").status == 200)
        #expect(try await server.device(role: .dispatcher, team: nil).content("att-1").status == 200)
        #expect(try await server.device(team: "north").content("att-1").status == 404)
        #expect(try await server.device(role: .supervisor, team: "north").content("att-1").status == 404)
    }

    @Test("An unfinished upload is not served: 409 to its uploader, 404 to others")
    func unfinished() async throws {
        let server = try await AttachmentTestServer.start()
        defer { server.stop() }
        let ana = try server.device()
        #expect(try await ana.register("att-1", TestFile(size: 70_000)).status == 200)
        let own = try await ana.content("att-1")
        #expect(own.status == 409 && own.errorCode == "UPLOAD_INCOMPLETE", "\(own)")
        #expect(try await server.device().content("att-1").status == 404)
    }

    @Test("Content comes with its type and a strong ETag; If-None-Match answers 304")
    func wholeFileAndETag() async throws {
        let server = try await AttachmentTestServer.start()
        defer { server.stop() }
        let ana = try server.device()
        let file = TestFile(size: 200_000)
        try await ana.upload("att-1", file)
        let whole = try await ana.content("att-1")
        #expect(whole.status == 200 && whole.body == file.data)
        #expect(whole.headers["content-type"] == "image/jpeg")
        #expect(whole.headers["etag"] == "\"\(file.sha256)\"")
        #expect(whole.headers["accept-ranges"] == "bytes")
        #expect(whole.headers["x-content-type-options"] == "nosniff")
        let cached = try await ana.content("att-1", headers: ["If-None-Match": "\"\(file.sha256)\""])
        #expect(cached.status == 304 && cached.body.isEmpty, "\(cached)")
    }

    @Test(
        "Single byte ranges answer 206 with Content-Range; ranges past the end answer 416",
        arguments: [
            ("bytes=0-99", 206, 0..<100), ("bytes=199990-", 206, 199_990..<200_000), ("bytes=-5", 206, 199_995..<200_000),
            ("bytes=100-999999999", 206, 100..<200_000), ("bytes=100-50", 200, 0..<200_000), ("bytes=0-1,5-6", 200, 0..<200_000),
            ("items=0-5", 200, 0..<200_000), ("bytes=200000-", 416, 0..<0), ("bytes=-0", 416, 0..<0),
        ])
    func ranges(header: String, status: Int, expected: Range<Int>) async throws {
        let server = try await AttachmentTestServer.start()
        defer { server.stop() }
        let ana = try server.device()
        let file = TestFile(size: 200_000)
        try await ana.upload("att-1", file)
        let answer = try await ana.content("att-1", headers: ["Range": header])
        #expect(answer.status == status, "\(answer)")
        switch status {
        case 206:
            #expect(answer.body == file.data.subdata(in: expected))
            #expect(answer.headers["content-range"] == "bytes \(expected.lowerBound)-\(expected.upperBound - 1)/200000")
        case 416:
            #expect(answer.errorCode == "RANGE_NOT_SATISFIABLE" && answer.headers["content-range"] == "bytes */200000")
        default:
            #expect(answer.body == file.data && answer.headers["content-range"] == nil)
        }
    }

    @Test("A range with a stale If-Range gets the whole current file")
    func ifRange() async throws {
        let server = try await AttachmentTestServer.start()
        defer { server.stop() }
        let ana = try server.device()
        let file = TestFile(size: 100_000)
        try await ana.upload("att-1", file)
        let stale = try await ana.content("att-1", headers: ["Range": "bytes=0-9", "If-Range": "\"something-else\""])
        #expect(stale.status == 200 && stale.body == file.data)
        let fresh = try await ana.content("att-1", headers: ["Range": "bytes=0-9", "If-Range": "\"\(file.sha256)\""])
        #expect(fresh.status == 206 && fresh.body == file.data.prefix(10))
    }
}
