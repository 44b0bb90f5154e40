import App
import Foundation
import Storage
import SyncEngine
import SyncProtocol
import Testing

@Suite("Team roll-up: the back-office page and GET /v1/team/rollup")
struct TeamRollupTests {
    /// The review scenario (ana and ben in team north) plus a member of team south with a rejected op.
    static func seed(_ server: WebTestServer) throws -> ReviewScenario {
        let scenario = try ReviewScenario.open(server)
        try server.createUser("cy", role: .field, team: "south")
        let cy = try WebDevice(server, username: "cy", deviceId: "cy-phone")
        try cy.push(.update, "jobs", "job-none", ["notes": "x"], base: 1)
        return scenario
    }

    @Test("The JSON roll-up gives a supervisor their team's members with records, ops, conflicts and last sync")
    func supervisorJSON() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        _ = try Self.seed(server)
        try server.createUser("sam", role: .supervisor, team: "north")
        let phone = try WebDevice(server, username: "sam", deviceId: "sam-phone")
        let response = try phone.get("/v1/team/rollup")
        #expect(response.status == 200 && response.header("Content-Type")?.hasPrefix("application/json") == true)
        let body = try JSONDecoder().decode(JSONValue.self, from: Data(response.body.utf8))
        #expect(body["teamId"] == "north" && body["generatedAt"]?.stringValue != nil)
        guard case .array(let members)? = body["members"] else {
            Issue.record("no members")
            return
        }
        #expect(members.compactMap { $0["username"]?.stringValue } == ["ana", "ben", "sam"])
        let ana = members[0]
        #expect(ana["role"] == "field" && ana["suspended"] == false && ana["devices"] == 1)
        #expect(ana["records"] == ["active": 1, "inReview": 1, "deleted": 0])
        #expect(ana["ops"] == ["applied": 1, "deferred": 0, "rejected": 0, "conflict": 1])
        #expect(ana["openConflicts"] == 1 && ana["lastSyncAt"]?.stringValue != nil)
        #expect(members[1]["ops"]?["applied"] == 1 && members[1]["openConflicts"] == 0)
        #expect(members[2]["lastSyncAt"] == .null, "sam's phone signed in but never synced")
    }

    @Test("Administrators name the team; field users and dispatchers get 403 FORBIDDEN; no token is 401")
    func access() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        _ = try Self.seed(server)
        try server.createUser("dina", role: .dispatcher)
        try server.createUser("boss", role: .admin)
        try server.createUser("lone", role: .supervisor)
        let admin = try WebDevice(server, username: "boss", deviceId: "boss-laptop")
        let south = try admin.get("/v1/team/rollup?team=south")
        #expect(south.status == 200)
        let body = try JSONDecoder().decode(JSONValue.self, from: Data(south.body.utf8))
        guard case .array(let members)? = body["members"], let cy = members.first else {
            Issue.record("no members")
            return
        }
        #expect(members.count == 1 && cy["username"] == "cy" && cy["ops"]?["rejected"] == 1)
        let missing = try admin.get("/v1/team/rollup")
        #expect(missing.status == 400 && missing.body.contains("VALIDATION_FAILED"))
        for (user, device) in [("ana", "ana-2"), ("dina", "dina-1"), ("lone", "lone-1")] {
            let response = try WebDevice(server, username: user, deviceId: device).get("/v1/team/rollup")
            #expect(response.status == 403, "\(user)")
            let envelope = try JSONDecoder().decode(ErrorEnvelope.self, from: Data(response.body.utf8))
            #expect(envelope.error.code == .forbidden, "\(user)")
        }
        #expect(try Browser(port: server.app.port).get("/v1/team/rollup").status == 401)
    }

    @Test("The team page shows a supervisor their own team and lets an administrator pick any team")
    func page() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        _ = try Self.seed(server)
        try server.createUser("sam", role: .supervisor, team: "north")
        let own = try server.signedIn(as: "sam").get("/admin/team?team=south")
        #expect(own.status == 200 && own.body.contains("Team north") && own.body.contains("ana") && !own.body.contains(">cy<"))
        #expect(!own.body.contains(#"name="team""#), "a supervisor cannot pick another team")
        let admin = try server.signedIn()
        let south = try admin.get("/admin/team?team=south")
        #expect(south.body.contains("Team south") && south.body.contains(">cy<") && south.body.contains(#"<option value="north">"#))
        let first = try admin.get("/admin/team")
        #expect(first.body.contains("Team north"), "the first team when none is named")
    }
}
