import App
import Foundation
import Postgres
import SyncProtocol
import Testing

@Suite("Assignment pages, over HTTP")
struct WebAssignmentsTests {
    @Test("creating through the form writes one op of the dispatcher's back-office device that the assignee's phone pulls")
    func create() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        let scene = try AssignmentScene.open(server)
        let id = try scene.create()
        let record = try server.record("assignments", id)
        #expect(record.payload["title"] == "Replace boiler valve" && record.payload["dueDate"] == "2026-12-24")
        #expect(record.payload["assigneeId"]?.stringValue == scene.anaId && record.payload["teamId"] == "north")
        let op = try server.database.withConnection { connection in
            try connection.query("SELECT device_id, author_id, status FROM op_log WHERE record_id = \(id)").map {
                (try $0.decode(0, as: String.self), try $0.decode(1, as: String.self), try $0.decode(2, as: String.self))
            }
        }
        #expect(op.count == 1 && op.first?.0 == "web:\(scene.deeId)" && op.first?.1 == scene.deeId && op.first?.2 == "applied")
        let events = try server.integer("SELECT count(*)::int FROM events WHERE type = 'record.changed' AND data->>'recordId' = \(id)")
        #expect(events == 1)
        #expect(try scene.ana.pull().change("assignments", id)?.type == .upsert)
        #expect(try scene.bo.pull().change("assignments", id) == nil)

        let history = try scene.dee.get("/admin/sync/records/assignments/\(id)")
        #expect(history.status == 200 && history.body.contains("dee") && history.body.contains("web:\(scene.deeId)"))
        let page = try scene.dee.get("/admin/assignments/assignments/\(id)?notice=created")
        #expect(page.status == 200 && page.body.contains("Assignment created.") && page.body.contains(#"value="ana""#))
        let list = try scene.dee.get("/admin/assignments")
        #expect(list.body.contains("Replace boiler valve") && list.body.contains("/admin/assignments/assignments/\(id)"))
    }

    @Test("reassigning moves the record: the new assignee pulls it, the previous one pulls its removal")
    func reassign() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        let scene = try AssignmentScene.open(server)
        let id = try scene.create()
        let anaFirst = try scene.ana.pull()
        #expect(anaFirst.change("assignments", id) != nil)
        let boFirst = try scene.bo.pull()

        let moved = try scene.edit("/admin/assignments/assignments/\(id)", AssignmentScene.fields(["assignee": "bo", "team": "south"]))
        #expect(moved.status == 303 && moved.location == "/admin/assignments/assignments/\(id)?notice=saved")
        #expect(try scene.bo.pull(after: boFirst.nextCursor).change("assignments", id)?.type == .upsert)
        #expect(try scene.ana.pull(after: anaFirst.nextCursor).change("assignments", id)?.type == .remove)
        let authors = try server.integer("SELECT count(DISTINCT author_id)::int FROM op_log WHERE record_id = \(id)")
        #expect(authors == 1)

        let unchanged = try scene.edit("/admin/assignments/assignments/\(id)", AssignmentScene.fields(["assignee": "bo", "team": "south"]))
        #expect(unchanged.location == "/admin/assignments/assignments/\(id)?notice=unchanged")
        #expect(try server.integer("SELECT count(*)::int FROM op_log WHERE record_id = \(id)") == 2)
    }

    @Test("a field user's job moves to another field user and team; its other values stay")
    func moveJob() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        let scene = try AssignmentScene.open(server)
        #expect(try scene.ana.push(.create, "jobs", "job-7", ["title": "Fix pump", "status": "in_progress"]).status == .applied)
        let anaFirst = try scene.ana.pull()
        let form = try scene.dee.get("/admin/assignments/jobs/job-7")
        #expect(form.status == 200 && !form.body.contains(#"name="title""#) && form.body.contains(#"value="ana""#))
        let moved = try scene.edit("/admin/assignments/jobs/job-7", [("assignee", scene.boId), ("team", "south"), ("title", "ignored")])
        #expect(moved.status == 303)
        let job = try server.record("jobs", "job-7").payload
        #expect(job["title"] == "Fix pump" && job["assigneeId"]?.stringValue == scene.boId && job["teamId"] == "south")
        #expect(try scene.ana.pull(after: anaFirst.nextCursor).change("jobs", "job-7")?.type == .remove)
        #expect(try scene.bo.pull().change("jobs", "job-7")?.payload?["title"] == "Fix pump")
        let listed = try scene.dee.get("/admin/assignments?kind=jobs&team=south")
        #expect(listed.body.contains("/admin/assignments/jobs/job-7") && listed.body.contains("Fix pump"))
        let other = try scene.dee.get("/admin/assignments?kind=jobs&user=ana")
        #expect(other.status == 200 && !other.body.contains("job-7"))
    }

    @Test("a change made by someone else since the form was loaded is told in words, not overwritten")
    func conflict() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        let scene = try AssignmentScene.open(server)
        let id = try scene.create()
        let path = "/admin/assignments/assignments/\(id)"
        let stale = try scene.dee.get(path)
        let staleBase = try #require(AssignmentScene.hidden("baseServerSeq", in: stale.body))

        let adele = try server.signedIn(as: "adele")
        let done = try scene.edit(path, as: adele, AssignmentScene.fields(["status": "done"]))
        #expect(done.status == 303)

        let answer = try scene.dee.post(
            path, AssignmentScene.fields(["title": "Replace both valves"]) + [("baseServerSeq", staleBase), ("_csrf", try #require(stale.csrfToken))])
        #expect(answer.status == 409)
        #expect(answer.body.contains("Someone changed this record after you opened the form"))
        #expect(answer.body.contains("Status is now “done” (you entered “open”)"))
        #expect(answer.body.contains("Your other changes were saved (Title)"))
        let record = try server.record("assignments", id)
        #expect(record.payload["status"] == "done" && record.payload["title"] == "Replace both valves")
        #expect(AssignmentScene.hidden("baseServerSeq", in: answer.body) == String(record.serverSeq))
        #expect(answer.body.contains(#"value="Replace both valves""#))
    }

    @Test("bad input is refused next to its field and writes nothing", arguments: [
        (["title": ""], "Enter a title."),
        (["title": String(repeating: "x", count: 201)], "Use at most 200 characters."),
        (["title": "two\nlines"], "Remove the line breaks"),
        (["dueDate": "2026-02-30"], "Enter a date as YYYY-MM-DD"),
        (["status": "evil"], "Choose one of: open, done, cancelled."),
        (["assignee": "nobody"], "No user is named “nobody” or has that id."),
        (["assignee": "dee"], "dee is not a field user (role: Dispatcher)"),
        (["team": "atlantis"], "There is no team “atlantis”."),
        (["assignee": "", "team": ""], "Choose a field user or a team"),
        (["assignee": String(repeating: "a", count: 101)], "Use at most 100 characters."),
    ])
    func hostileInput(changes: [String: String], message: String) throws {
        let server = try WebTestServer()
        defer { server.stop() }
        let scene = try AssignmentScene.open(server)
        let before = try scene.recordCount()
        let answer = try scene.dee.submit("/admin/assignments", from: "/admin/assignments/new", AssignmentScene.fields(changes))
        #expect(answer.status == 422)
        #expect(answer.body.contains(#"<p class="field-error""#) && answer.body.contains(message), "\(answer.body)")
        #expect(try scene.recordCount() == before)
        #expect(try server.integer("SELECT count(*)::int FROM op_log") == 0)
    }

    @Test("damaged forms, unknown records and markup are refused or escaped")
    func damaged() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        let scene = try AssignmentScene.open(server)
        let id = try scene.create(["title": "<script>alert(1)</script>"])
        let path = "/admin/assignments/assignments/\(id)"
        let list = try scene.dee.get("/admin/assignments")
        #expect(!list.body.contains("<script>alert(1)") && list.body.contains("&lt;script&gt;alert(1)"))
        let ops = try server.integer("SELECT count(*)::int FROM op_log")
        for base in ["", "abc", "-1", "99999999999999999999999"] {
            let answer = try scene.dee.submit(path, from: path, AssignmentScene.fields(["title": "x"]) + [("baseServerSeq", base)])
            #expect(answer.status == 400, "base \(base)")
        }
        #expect(try scene.dee.get("/admin/assignments/orders/ORD-1").status == 404)
        #expect(try scene.dee.get("/admin/assignments/assignments/nope").status == 404)
        #expect(try scene.dee.submit("/admin/assignments/assignments/nope", from: path, [("baseServerSeq", "1")]).status == 404)
        #expect(try scene.dee.get("/admin/assignments?after=garbage").status == 400)
        let unknown = try scene.dee.get("/admin/assignments?user=nobody")
        #expect(unknown.status == 422 && unknown.body.contains("No user is named “nobody”"))
        #expect(try server.integer("SELECT count(*)::int FROM op_log") == ops)
    }

    @Test("every form needs this session's CSRF token; without it nothing is written")
    func csrf() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        let scene = try AssignmentScene.open(server)
        let id = try scene.create()
        let path = "/admin/assignments/assignments/\(id)"
        let ops = try server.integer("SELECT count(*)::int FROM op_log")
        #expect(try scene.dee.post("/admin/assignments", AssignmentScene.fields()).status == 403)
        #expect(try scene.dee.post(path, AssignmentScene.fields(["title": "changed"]) + [("baseServerSeq", "1")]).status == 403)
        let other = try server.signedIn(as: "adele")
        let foreign = try #require(try other.get(path).csrfToken)
        let forged = try scene.dee.post(path, AssignmentScene.fields(["title": "changed"]) + [("baseServerSeq", "1"), ("_csrf", foreign)])
        #expect(forged.status == 403)
        #expect(try server.integer("SELECT count(*)::int FROM op_log") == ops)
        #expect(try server.record("assignments", id).payload["title"] == "Replace boiler valve")
    }

    @Test("dispatchers and admins use the pages; supervisors are refused, and the navigation follows")
    func access() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        let scene = try AssignmentScene.open(server)
        let id = try scene.create()
        let path = "/admin/assignments/assignments/\(id)"
        for name in ["dee", "adele"] {
            let browser = try server.signedIn(as: name)
            let dashboard = try browser.get("/admin")
            #expect(dashboard.body.contains(#"href="/admin/assignments""#), "\(name)'s navigation")
            for page in ["/admin/assignments", "/admin/assignments/new", path] { #expect(try browser.get(page).status == 200, "\(name) \(page)") }
        }
        let sue = try server.signedIn(as: "sue")
        #expect(!(try sue.get("/admin").body.contains(#"href="/admin/assignments""#)))
        for page in ["/admin/assignments", "/admin/assignments/new", path] { #expect(try sue.get(page).status == 403) }
        let token = try #require(try sue.get("/admin").csrfToken)
        #expect(try sue.post(path, AssignmentScene.fields(["title": "sue's"]) + [("baseServerSeq", "1"), ("_csrf", token)]).status == 403)
        #expect(try server.record("assignments", id).payload["title"] == "Replace boiler valve")
        let anonymous = try Browser(port: server.app.port).get("/admin/assignments")
        #expect(anonymous.status == 303 && anonymous.location?.hasPrefix("/login") == true)
    }
}
