import App
import Foundation
import Postgres
import Storage
import SyncEngine
import SyncProtocol
import Testing

@Suite("Dashboard, over HTTP")
struct WebDashboardTests {
    /// The number on the card labelled `label`, as shown.
    static func card(_ label: String, in body: String) -> String? {
        guard let start = body.range(of: #"<span class="card-label">\#(label)</span>"#),
            let value = body.range(of: #"<span class="card-value">"#, range: start.upperBound..<body.endIndex)
        else { return nil }
        return String(body[value.upperBound...].prefix { $0 != "<" })
    }

    /// Sync rows for two teams: devices synced today and yesterday, deferred ops,
    /// open and resolved conflicts, submitted and confirmed orders.
    static func seed(_ server: WebTestServer) throws {
        let ana = try server.createUser("ana", role: .field, team: "north")
        let bo = try server.createUser("bo", role: .field, team: "south")
        let today = TestClock.start - 3600
        let yesterday = TestClock.start - 86_400
        try server.database.withConnection { db in
            for (device, user, synced) in [("d-1", ana.id, today), ("d-2", ana.id, yesterday), ("d-3", bo.id, today)] {
                try db.execute("INSERT INTO devices (device_id, user_id, last_sync_at) VALUES (\(device), \(user), \(synced))")
            }
            for (op, device, user, status) in [
                ("o-1", "d-1", ana.id, "deferred"), ("o-2", "d-1", ana.id, "applied"), ("o-3", "d-3", bo.id, "deferred"),
            ] {
                try db.execute(
                    """
                    INSERT INTO op_log (device_id, op_id, client_seq, entity_key, author_id, collection, record_id, status, result, fingerprint, body)
                    VALUES (\(device), \(op), 1, 'jobs:j', \(user), 'jobs', 'j', \(status), '{}', 'f', '{}')
                    """)
            }
            for (id, user, team, state) in [("c-1", ana.id, "north", "open"), ("c-2", bo.id, "south", "open"), ("c-3", ana.id, "north", "resolved")] {
                try db.execute(
                    """
                    INSERT INTO conflicts (id, collection, record_id, author_id, device_id, state, scope_keys, entry)
                    VALUES (\(id), 'reports', 'r', \(user), 'd-1', \(state), ARRAY[\("team:" + team)], '{}')
                    """)
            }
            for (index, status) in ["SUBMITTED", "SUBMITTED", "CONFIRMED"].enumerated() {
                try db.execute(
                    """
                    INSERT INTO records (collection, record_id, payload, field_meta, server_seq, schema_version, team_scope)
                    VALUES ('orders', \("o-\(index)"), jsonb_build_object('status', \(status)::text), '{}', \(index + 1), 3, 'team:north')
                    """)
            }
        }
        _ = try server.app.core.accounts.issueToken(userId: ana.id, deviceId: "d-1", platform: nil, appVersion: nil, lifetime: 3600)
    }

    @Test("Administrators see counts for the whole server")
    func everything() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        try Self.seed(server)
        let body = try server.signedIn().get("/admin").body
        #expect(Self.card("Orders to confirm", in: body) == "2")
        #expect(Self.card("Open conflicts", in: body) == "2")
        #expect(Self.card("Ops waiting", in: body) == "2")
        #expect(Self.card("Devices synced today", in: body) == "2")
        #expect(Self.card("Signed-in devices", in: body) == "1")
        #expect(Self.card("Active users", in: body) == "3")
        #expect(body.contains("All teams"))
    }

    @Test("Supervisors see their own team's counts and no order or user figures")
    func supervisorTeam() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        try Self.seed(server)
        try server.createUser("sam", role: .supervisor, team: "north")
        try server.createUser("lone", role: .supervisor)
        let body = try server.signedIn(as: "sam").get("/admin").body
        #expect(body.contains("Team north"))
        #expect(Self.card("Open conflicts", in: body) == "1")
        #expect(Self.card("Ops waiting", in: body) == "1")
        #expect(Self.card("Devices synced today", in: body) == "1")
        #expect(Self.card("Orders to confirm", in: body) == nil)
        #expect(Self.card("Active users", in: body) == nil)
        let lone = try server.signedIn(as: "lone").get("/admin").body
        #expect(lone.contains("You are not in a team yet"))
        #expect(Self.card("Open conflicts", in: lone) == nil)
    }
}
