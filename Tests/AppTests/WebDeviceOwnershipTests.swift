import App
import Foundation
import Postgres
import Storage
import SyncEngine
import SyncProtocol
import Testing

/// A device id belongs to one user; administrators release it; resets and suspensions end
/// device sign-ins; supervisors see only their team's journals. Over HTTP, on PostgreSQL.
@Suite("Device ownership in the back-office")
struct WebDeviceOwnershipTests {
    /// `POST /v1/auth/token` for `username` on `deviceId`.
    static func signIn(_ server: WebTestServer, _ username: String, deviceId: String) throws -> WebResponse {
        let login = TokenRequest(username: username, password: WebTestServer.password, deviceId: deviceId, platform: "ios", appVersion: "2.3.0")
        return try Browser(port: server.app.port).send(
            "POST", "/v1/auth/token", body: try JSONEncoder().encode(login), contentType: "application/json")
    }

    /// `GET /v1/config` as `device` until it answers `status` (other processes' cached grants
    /// drop on a notification); whether it did within five seconds.
    static func answers(_ status: Int, _ device: WebDevice) throws -> Bool {
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline {
            if try device.get("/v1/config").status == status { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return try device.get("/v1/config").status == status
    }

    @Test("Releasing a device asks first, needs the CSRF token, is audited, and gives the next user a fresh history")
    func release() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        let ana = try server.createUser("ana", role: .field, team: "north")
        try server.createUser("bo", role: .field, team: "north")
        let anaPhone = try WebDevice(server, username: "ana", deviceId: "shared-phone")
        let anaOp = try anaPhone.push(.create, "jobs", "job-ana", ["title": "Ana's boiler"])
        #expect(anaOp.status == .applied)
        let refused = try Self.signIn(server, "bo", deviceId: "shared-phone")
        #expect(refused.status == 409 && refused.body.contains("DEVICE_ID_TAKEN") && refused.body.contains(#""deviceId":"shared-phone""#))

        let admin = try server.signedIn()
        let tokenId = try #require(try server.app.core.accounts.listTokens(userId: ana.id).first?.tokenId)
        let releasePath = "/admin/devices/\(tokenId)/release"
        #expect(try admin.get("/admin/devices").body.contains(releasePath))
        let confirm = try admin.get(releasePath)
        #expect(confirm.status == 200 && confirm.body.contains("Release device shared-phone?"))
        #expect(try admin.post(releasePath, []).status == 403, "no CSRF token, nothing released")
        #expect(try server.app.core.accounts.deviceOwner("shared-phone") == ana.id)

        let released = try admin.submit(releasePath, from: releasePath)
        #expect(released.location == "/admin/devices?notice=released")
        #expect(try Self.answers(401, anaPhone), "the old owner's sign-in ends")
        #expect(try server.app.core.accounts.deviceOwner("shared-phone") == nil)
        let audit = try server.integer(
            "SELECT count(*) FROM admin_audit WHERE action = 'device.released' AND subject = 'shared-phone' AND actor_id IS NOT NULL")
        #expect(audit == 1)
        let retired = try server.database.withConnection { connection in
            try connection.query("SELECT device_id, user_id FROM devices WHERE device_id LIKE 'shared-phone~%'").map {
                (try $0.decode(0, as: String.self), try $0.decode(1, as: String.self))
            }
        }
        #expect(retired.count == 1 && retired.first?.1 == ana.id, "the journal stays, marked with the old user")
        let retiredId = try #require(retired.first?.0)
        #expect(try server.integer("SELECT count(*) FROM op_log WHERE device_id = \(retiredId) AND author_id = \(ana.id)") == 1)
        #expect(try admin.get("/admin/sync/devices/\(retiredId)").body.contains("job-ana"))

        let boPhone = try WebDevice(server, username: "bo", deviceId: "shared-phone")
        let boOp = try boPhone.push(.create, "jobs", "job-bo", ["title": "Bo's pump"])
        #expect(boOp.opId == anaOp.opId, "the same op id and clientSeq 1 as ana's first op")
        #expect(boOp.status == .applied && boOp.replayed != true && boOp.serverSeq != anaOp.serverSeq)
        #expect(try server.integer("SELECT count(*) FROM records WHERE record_id = 'job-bo'") == 1)
        #expect(try admin.post(releasePath, []).status == 403)
        let stale = try admin.submit(releasePath, from: "/admin/devices")
        #expect(stale.location == "/admin/devices?notice=not-owned", "ana's old token no longer names bo's device")
        #expect(try server.app.core.accounts.deviceOwner("shared-phone") != nil)
    }

    @Test("A password reset and a suspension revoke the user's device tokens, not only web sessions")
    func resetAndSuspensionRevokeTokens() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        let ana = try server.createUser("ana", role: .field, team: "north")
        let bo = try server.createUser("bo", role: .field, team: "north")
        let anaPhone = try WebDevice(server, username: "ana", deviceId: "ana-phone")
        let boPhone = try WebDevice(server, username: "bo", deviceId: "bo-phone")
        #expect(try anaPhone.get("/v1/config").status == 200 && boPhone.get("/v1/config").status == 200)
        let admin = try server.signedIn()

        let anaPage = "/admin/users/\(ana.id)"
        let reset = try admin.submit(anaPage + "/password", from: anaPage, [("password", "new-password-1"), ("repeat", "new-password-1")])
        #expect(reset.location == anaPage + "?notice=password")
        #expect(try Self.answers(401, anaPhone))
        #expect(try server.app.core.accounts.listTokens(userId: ana.id).allSatisfy { $0.revokedAt != nil })

        let boPage = "/admin/users/\(bo.id)"
        #expect(try admin.submit(boPage + "/suspend", from: boPage + "/suspend").location == boPage + "?notice=suspended")
        #expect(try Self.answers(403, boPhone) && boPhone.get("/v1/config").body.contains("ACCOUNT_SUSPENDED"))
        #expect(try server.app.core.accounts.listTokens(userId: bo.id).allSatisfy { $0.revokedAt != nil })
        #expect(try admin.submit(boPage + "/reactivate", from: boPage).location == boPage + "?notice=reactivated")
        #expect(try Self.answers(401, boPhone), "reactivation does not bring the old sign-in back")
        #expect(try WebDevice(server, username: "bo", deviceId: "bo-phone").get("/v1/config").status == 200)
    }

    @Test("A supervisor cannot take another team's device, and a journal export holds only the team's authors")
    func supervisorJournal() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        try server.createUser("sam", role: .field, team: "south")
        try server.createUser("nina", role: .field, team: "north")
        let north = try server.createUser("nils", role: .supervisor, team: "north")
        let samPhone = try WebDevice(server, username: "sam", deviceId: "south-phone")
        try samPhone.push(.create, "jobs", "job-south", ["title": "South secret"])
        for name in ["nils", "nina"] {
            #expect(try Self.signIn(server, name, deviceId: "south-phone").status == 409)
        }
        let supervisor = try server.signedIn(as: "nils")
        #expect(try supervisor.get("/admin/sync/devices/south-phone?format=csv").status == 403)

        // A journal that holds two teams' authors (written before devices had owners): nina's
        // device, with an op of sam's logged on it.
        _ = try WebDevice(server, username: "nina", deviceId: "mixed")
        let core = server.app.core
        let nina = try #require(try core.accounts.credentials(username: "nina")?.user)
        let sam = try #require(try core.accounts.credentials(username: "sam")?.user)
        for (user, record, seq) in [(nina, "job-north", Int64(1)), (sam, "job-leak", Int64(2))] {
            let op = PushOp(
                opId: "mixed-\(seq)", clientSeq: seq, collection: "jobs", recordId: record, type: .create, baseServerSeq: nil,
                occurredAt: RFC3339.string(from: Date().addingTimeInterval(-60)), fields: ["title": FieldChange(old: nil, new: "t")])
            let principal = Principal(userId: user.id, role: .field, teamId: user.teamId, deviceId: "mixed")
            _ = try core.pushes.push(PushRequest(deviceId: "mixed", schemaVersion: core.schema.version, ops: [op]), by: principal)
        }
        #expect(north.teamId == "north")
        for format in ["csv", "json"] {
            let export = try supervisor.get("/admin/sync/devices/mixed?format=\(format)")
            #expect(export.status == 200 && export.body.contains("job-north"), "\(format): \(export.status)")
            #expect(!export.body.contains("job-leak") && !export.body.contains("mixed-2"), "\(format)")
        }
        let page = try supervisor.get("/admin/sync/devices/mixed")
        #expect(page.body.contains("job-north") && !page.body.contains("job-leak"))
        #expect(try server.signedIn().get("/admin/sync/devices/mixed?format=csv").body.contains("job-leak"), "admins see every author")
    }
}
