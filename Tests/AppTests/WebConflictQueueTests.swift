import App
import Foundation
import Postgres
import Storage
import SyncEngine
import SyncProtocol
import Testing

@Suite("Conflict queue, over HTTP")
struct WebConflictQueueTests {
    @Test("A conflict two devices made appears in the queue and is resolved field by field through the form")
    func resolvePerField() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        let scenario = try ReviewScenario.open(server)
        let dina = try server.createUser("dina", role: .dispatcher)
        let browser = try server.signedIn(as: "dina")

        let queue = try browser.get("/admin/conflicts")
        #expect(queue.status == 200)
        #expect(queue.body.contains("rep-1") && queue.body.contains("Needs your review") && queue.body.contains("1 open conflict"))
        let detailPath = "/admin/conflicts/\(scenario.conflictId)"
        #expect(queue.body.contains(#"href="\#(detailPath)""#))

        let detail = try browser.get(detailPath)
        #expect(detail.status == 200)
        #expect(detail.body.contains(#"name="pick.answers" value="device""#) && detail.body.contains(#"name="pick.photos" value="server""#))
        #expect(detail.body.contains("Both changed") && detail.body.contains("ana"))

        let before = try server.record("reports", "rep-1")
        let response = try browser.submit(
            detailPath + "/resolve", from: detailPath, [("choice", "merge"), ("pick.answers", "device"), ("pick.photos", "server")])
        #expect(response.status == 303 && response.location == detailPath + "?notice=resolved")

        let after = try server.record("reports", "rep-1")
        #expect(after.payload["answers"] == ReviewScenario.deviceAnswers)
        #expect(after.payload["photos"] == nil)
        #expect(after.payload["assignmentId"] == "as-1")
        #expect(after.serverSeq > before.serverSeq && after.conflictId == nil)

        let entry = try #require(
            try PostgresConflictStore(database: server.database).list(for: .init(userId: dina.id, role: .dispatcher, deviceId: "t"), state: .resolved)
                .first)
        #expect(entry.resolution?.by == dina.id && entry.resolution?.choice == .merge && entry.resolution?.serverSeq == after.serverSeq)
        let resolved = try browser.get(response.location ?? "")
        #expect(resolved.body.contains("Conflict resolved.") && resolved.body.contains("Chose field by field"))
        #expect(resolved.body.contains("<dt>Resolved by</dt><dd>dina</dd>"))
        #expect(!resolved.body.contains(#"name="pick.answers""#), "no form once resolved")
        #expect(!(try browser.get("/admin/conflicts").body.contains("rep-1")), "gone from the open queue")
    }

    @Test("Keep server and take device resolve the whole record; a second resolution is refused in plain words")
    func wholeRecordChoices() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        let scenario = try ReviewScenario.open(server)
        try server.createUser("dina", role: .dispatcher)
        let browser = try server.signedIn(as: "dina")
        let path = "/admin/conflicts/\(scenario.conflictId)"

        let taken = try browser.submit(path + "/resolve", from: path, [("choice", "device")])
        #expect(taken.status == 303)
        let record = try server.record("reports", "rep-1")
        #expect(record.payload["answers"] == ReviewScenario.deviceAnswers && record.payload["photos"] == ["att-9"])

        let again = try browser.submit(path + "/resolve", from: path, [("choice", "server")])
        #expect(again.status == 409)
        #expect(again.body.contains("Someone else resolved this conflict"))
        #expect(try server.record("reports", "rep-1").serverSeq == record.serverSeq)
    }

    @Test("A per-field form with a field left unanswered changes nothing and says which field")
    func unansweredField() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        let scenario = try ReviewScenario.open(server)
        let browser = try server.signedIn()
        let path = "/admin/conflicts/\(scenario.conflictId)"
        let before = try server.record("reports", "rep-1")
        let response = try browser.submit(path + "/resolve", from: path, [("choice", "merge"), ("pick.answers", "device")])
        #expect(response.status == 422 && response.body.contains("missing: photos"))
        #expect(try server.record("reports", "rep-1").serverSeq == before.serverSeq)
    }

    @Test("Without the CSRF token the resolution is refused with 403 and the conflict stays open")
    func csrf() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        let scenario = try ReviewScenario.open(server)
        let browser = try server.signedIn()
        let before = try server.record("reports", "rep-1")
        let response = try browser.post("/admin/conflicts/\(scenario.conflictId)/resolve", [("choice", "device")])
        #expect(response.status == 403 && response.body.contains("nothing was changed"))
        let forged = try browser.post("/admin/conflicts/\(scenario.conflictId)/resolve", [("choice", "device"), ("_csrf", "forged")])
        #expect(forged.status == 403)
        let after = try server.record("reports", "rep-1")
        #expect(after.serverSeq == before.serverSeq && after.conflictId == scenario.conflictId)
    }

    @Test("The queue filters by collection and team with a plain GET form and counts what is open")
    func filters() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        _ = try ReviewScenario.open(server)
        try server.database.withConnection { db in
            try db.execute(
                """
                INSERT INTO conflicts (id, collection, record_id, author_id, device_id, state, scope_keys, entry)
                SELECT 'c-south', 'jobs', 'job-9', id, 'bo-phone', 'open', ARRAY['team:south'],
                  jsonb_build_object('id', 'c-south', 'collection', 'jobs', 'recordId', 'job-9', 'opId', 'o', 'deviceId', 'bo-phone',
                    'authorId', id, 'state', 'open', 'openedAt', '2026-06-15T09:00:00Z', 'fields', '[]'::jsonb,
                    'deviceRevision', '{}'::jsonb, 'serverRevision', '{}'::jsonb)
                FROM users WHERE username = 'admin'
                """)
        }
        let browser = try server.signedIn()
        let all = try browser.get("/admin/conflicts")
        #expect(all.body.contains("rep-1") && all.body.contains("job-9") && all.body.contains("2 open conflicts"))
        #expect(
            all.body.contains(#"<option value="jobs" data-live-region="conflicts-count-jobs">jobs (1)</option>"#)
                && all.body.contains(#"<option value="south">south</option>"#))
        let jobs = try browser.get("/admin/conflicts?collection=jobs")
        #expect(jobs.body.contains("job-9") && !jobs.body.contains("rep-1") && jobs.body.contains("1 matching conflict"))
        let north = try browser.get("/admin/conflicts?collection=&team=north")
        #expect(north.body.contains("rep-1") && !north.body.contains("job-9"))
        let none = try browser.get("/admin/conflicts?team=nowhere")
        #expect(none.body.contains("No open conflicts match these filters"))
    }

    @Test("Supervisors get the 403 page for the queue and its form; signed-out visitors go to sign-in; nothing changes")
    func refusedRoles() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        let scenario = try ReviewScenario.open(server)
        try server.createUser("sam", role: .supervisor, team: "north")
        let path = "/admin/conflicts/\(scenario.conflictId)"
        let sam = try server.signedIn(as: "sam")
        #expect(try sam.get(path).status == 403)
        #expect(try sam.submit(path + "/resolve", from: "/admin", [("choice", "device")]).status == 403)
        let anonymous = Browser(port: server.app.port)
        #expect(try anonymous.get(path).location == "/login?next=" + path)
        #expect(try anonymous.post(path + "/resolve", [("choice", "device")]).location == "/login")
        #expect(try server.record("reports", "rep-1").conflictId == scenario.conflictId)
    }

    @Test("Navigation lists the conflict queue, sync centre and team pages only for the roles that may open them")
    func navigation() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        try server.createUser("dina", role: .dispatcher)
        try server.createUser("sam", role: .supervisor, team: "north")
        let links = [#"href="/admin/conflicts""#, #"href="/admin/sync""#, #"href="/admin/team""#]
        let expected: [(String?, [Bool])] = [(nil, [true, true, true]), ("dina", [true, true, false]), ("sam", [false, true, true])]
        for (user, shown) in expected {
            let body = try server.signedIn(as: user).get("/admin").body
            #expect(links.map { body.contains($0) } == shown, "\(user ?? "admin")")
        }
    }
}
