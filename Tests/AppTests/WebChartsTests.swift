import App
import Foundation
import Postgres
import Storage
import SyncEngine
import SyncProtocol
import Testing

@Suite("Charts on the back-office pages, over HTTP")
struct WebChartsTests {
    static let day = 86_400.0

    /// The visually hidden table's row for `label`, as its cells read: `["12", "1", "0", "13"]`.
    static func row(_ label: String, of chart: String, in body: String) -> [String]? {
        guard let start = body.range(of: #"<svg class="chart-svg""#), body.contains(#"id="\#(chart)-title""#),
            let chartStart = body.range(of: #"aria-labelledby="\#(chart)-title"#, range: start.lowerBound..<body.endIndex),
            let header = body.range(of: #"<th scope="row">\#(label)</th>"#, range: chartStart.upperBound..<body.endIndex),
            let end = body.range(of: "</tr>", range: header.upperBound..<body.endIndex)
        else { return nil }
        return body[header.upperBound..<end.lowerBound].components(separatedBy: "<td>").dropFirst().map {
            $0.replacingOccurrences(of: "</td>", with: "")
        }
    }

    /// Two teams' ops on the test's day and three days before, one deferred op, and one op
    /// older than the chart's two weeks.
    static func seedOps(_ server: WebTestServer) throws {
        let ana = try server.createUser("ana", role: .field, team: "north")
        let bo = try server.createUser("bo", role: .field, team: "south")
        let now = TestClock.start
        let ops: [(String, String, String, Date)] = [
            ("o-1", ana.id, "applied", now - 3600), ("o-2", ana.id, "applied", now - 7200), ("o-3", ana.id, "rejected", now - 3 * Self.day),
            ("o-4", bo.id, "conflict", now - 3 * Self.day), ("o-5", bo.id, "applied", now - 60), ("o-6", ana.id, "deferred", now - 60),
            ("o-7", ana.id, "applied", now - 20 * Self.day),
        ]
        try server.database.withConnection { db in
            for (op, user, status, at) in ops {
                try db.execute(
                    """
                    INSERT INTO op_log (device_id, op_id, client_seq, entity_key, author_id, collection, record_id, status, result, fingerprint, body, received_at)
                    VALUES ('d-1', \(op), 1, 'jobs:j', \(user), 'jobs', 'j', \(status), '{}', 'f', '{}', \(at))
                    """)
            }
        }
    }

    @Test("The dashboard draws ops per day for 14 days, with a title, a description and a table")
    func dashboardOutcomes() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        try Self.seedOps(server)
        try server.createUser("sam", role: .supervisor, team: "north")
        let body = try server.signedIn().get("/admin").body
        #expect(body.contains(#"<svg class="chart-svg" viewBox="0 0 800 240" role="img" aria-labelledby="chart-outcomes-title chart-outcomes-desc""#))
        #expect(body.contains(#"<title id="chart-outcomes-title">Ops per day over the last 14 days, by outcome</title>"#))
        #expect(body.contains("3 applied, 1 rejected and 1 in conflict"))
        #expect(Self.row("15 Jun", of: "chart-outcomes", in: body) == ["3", "0", "0", "3"])
        #expect(Self.row("12 Jun", of: "chart-outcomes", in: body) == ["0", "1", "1", "2"])
        #expect(Self.row("2 Jun", of: "chart-outcomes", in: body) == ["0", "0", "0", "0"])
        #expect(Self.row("1 Jun", of: "chart-outcomes", in: body) == nil)
        #expect(body.components(separatedBy: #"<th scope="row">"#).count - 1 == 14)

        let team = try server.signedIn(as: "sam").get("/admin").body
        #expect(team.contains("2 applied, 1 rejected and 0 in conflict"))
        #expect(Self.row("15 Jun", of: "chart-outcomes", in: team) == ["2", "0", "0", "2"])
        #expect(Self.row("12 Jun", of: "chart-outcomes", in: team) == ["0", "1", "0", "1"])
    }

    @Test("The team roll-up draws the chosen team's ops per day; a supervisor's is their own team's")
    func teamOutcomes() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        try Self.seedOps(server)
        try server.createUser("sue", role: .supervisor, team: "south")
        let south = try server.signedIn().get("/admin/team?team=south").body
        #expect(Self.row("15 Jun", of: "chart-outcomes", in: south) == ["1", "0", "0", "1"])
        #expect(Self.row("12 Jun", of: "chart-outcomes", in: south) == ["0", "0", "1", "1"])
        let own = try server.signedIn(as: "sue").get("/admin/team?team=north").body
        #expect(own.contains("1 applied, 0 rejected and 1 in conflict"))
    }

    @Test("The sync centre counts devices by time since their last sync, never-synced ones apart, per team for supervisors")
    func syncAges() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        let ana = try server.createUser("ana", role: .field, team: "north")
        let bo = try server.createUser("bo", role: .field, team: "south")
        try server.createUser("sam", role: .supervisor, team: "north")
        let now = TestClock.start
        let devices: [(String, String, Date?)] = [
            ("d-1", ana.id, now - 60), ("d-2", ana.id, now - 2 * 3600), ("d-3", ana.id, now - 2 * Self.day), ("d-4", ana.id, now - 30 * Self.day),
            ("d-5", ana.id, nil), ("d-6", bo.id, now - 60), ("d-7", bo.id, now + 600),
        ]
        try server.database.withConnection { db in
            for (device, user, synced) in devices {
                try db.execute("INSERT INTO devices (device_id, user_id, last_sync_at) VALUES (\(device), \(user), \(synced))")
            }
        }
        let body = try server.signedIn().get("/admin/sync").body
        #expect(body.contains(#"aria-labelledby="chart-sync-age-title chart-sync-age-desc""#))
        #expect(Self.row("Under 1 hour", of: "chart-sync-age", in: body) == ["3"])
        #expect(Self.row("1 to 24 hours", of: "chart-sync-age", in: body) == ["1"])
        #expect(Self.row("1 to 7 days", of: "chart-sync-age", in: body) == ["1"])
        #expect(Self.row("Over 7 days", of: "chart-sync-age", in: body) == ["1"])
        #expect(Self.row("Never", of: "chart-sync-age", in: body) == ["1"])
        let team = try server.signedIn(as: "sam").get("/admin/sync").body
        #expect(team.contains("Under 1 hour: 1; 1 to 24 hours: 1; 1 to 7 days: 1; Over 7 days: 1; Never: 1."))
    }

    @Test("The conflict queue counts open conflicts by collection and age, for the team it is filtered to")
    func conflictAges() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        let ana = try server.createUser("ana", role: .field, team: "north")
        let bo = try server.createUser("bo", role: .field, team: "south")
        let now = TestClock.start
        let conflicts: [(String, String, String, String, Date)] = [
            ("c-1", "reports", ana.id, "open", now - 3600), ("c-2", "reports", ana.id, "open", now - 2 * Self.day),
            ("c-3", "reports", bo.id, "open", now - 10 * Self.day), ("c-4", "jobs", bo.id, "open", now - 4 * Self.day),
            ("c-5", "jobs", ana.id, "resolved", now - 4 * Self.day), ("c-6", "<b>odd</b>", ana.id, "open", now),
        ]
        try server.database.withConnection { db in
            for (id, collection, user, state, opened) in conflicts {
                try db.execute(
                    """
                    INSERT INTO conflicts (id, collection, record_id, author_id, device_id, state, opened_at, scope_keys, entry)
                    VALUES (\(id), \(collection), 'r', \(user), 'd-1', \(state), \(opened), '{}',
                      jsonb_build_object('id', \(id)::text, 'collection', \(collection)::text, 'recordId', 'r', 'opId', 'o', 'deviceId', 'd-1',
                        'authorId', \(user)::text, 'state', \(state)::text, 'openedAt', '2026-06-15T09:00:00Z', 'fields', '[]'::jsonb,
                        'deviceRevision', '{}'::jsonb, 'serverRevision', '{}'::jsonb))
                    """)
            }
        }
        let body = try server.signedIn().get("/admin/conflicts").body
        #expect(body.contains(#"aria-labelledby="chart-conflict-age-title chart-conflict-age-desc""#))
        #expect(body.contains("5 open conflicts in 3 collections"))
        #expect(Self.row("reports", of: "chart-conflict-age", in: body) == ["1", "1", "0", "1", "3"])
        #expect(Self.row("jobs", of: "chart-conflict-age", in: body) == ["0", "0", "1", "0", "1"])
        #expect(Self.row("&lt;b&gt;odd&lt;/b&gt;", of: "chart-conflict-age", in: body) == ["1", "0", "0", "0", "1"])
        #expect(!body.contains("<b>odd</b>"))
        let south = try server.signedIn().get("/admin/conflicts?team=south").body
        #expect(Self.row("reports", of: "chart-conflict-age", in: south) == ["0", "0", "0", "1", "1"])
        #expect(south.contains("2 open conflicts in 2 collections"))
    }

    @Test("A chart with nothing to count still draws its axis and says so")
    func emptyCharts() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        let admin = try server.signedIn()
        for path in ["/admin", "/admin/sync", "/admin/conflicts"] {
            let body = try admin.get(path).body
            #expect(body.contains("Nothing to show yet"), "\(path)")
            #expect(body.contains(#"role="img""#), "\(path)")
        }
        #expect(try admin.get("/admin/conflicts").body.contains("No conflicts are open."))
    }
}
