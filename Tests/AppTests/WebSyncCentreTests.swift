import Foundation
import Postgres
import Storage
import SyncEngine
import SyncProtocol
import Testing

@Suite("Sync centre, over HTTP")
struct WebSyncCentreTests {
    /// The table row of the page that mentions `text`.
    static func row(containing text: String, in body: String) -> String? {
        body.components(separatedBy: "<tr").first { $0.contains(text) }
    }

    /// Adds an op straight to the log, for values devices cannot send (markup in ids, awkward CSV text).
    static func insertOp(_ server: WebTestServer, device: String, opId: String, record: String, status: String, code: String?, message: String) throws
    {
        try server.database.withConnection { db in
            try db.execute(
                """
                INSERT INTO devices (device_id, user_id, app_version, last_sync_at)
                SELECT \(device), id, '2.1.0', now() FROM users WHERE username = 'admin' ON CONFLICT DO NOTHING
                """)
            try db.execute(
                """
                INSERT INTO op_log (device_id, op_id, client_seq, entity_key, author_id, collection, record_id, status, code, result, fingerprint, body)
                SELECT \(device), \(opId), 1, \(record), id, 'jobs', \(record), \(status), \(code),
                       jsonb_build_object('opId', \(opId)::text, 'status', \(status)::text, 'message', \(message)::text), 'f',
                       jsonb_build_object('type', 'update', 'occurredAt', '2026-06-15T08:00:00Z', 'fields', jsonb_build_object('status', '{}'::jsonb))
                FROM users WHERE username = 'admin'
                """)
        }
    }

    @Test("Devices are listed with their user, app version (below the minimum flagged) and op counts per outcome")
    func deviceList() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        _ = try ReviewScenario.open(server)
        let body = try server.signedIn().get("/admin/sync").body
        let ana = try #require(Self.row(containing: "ana-phone", in: body))
        #expect(ana.contains("ana") && ana.contains("2.3.0") && !ana.contains("Below minimum"))
        #expect(ana.contains(#"<td class="num">1</td>"#) && ana.contains(#"<td class="num warn">1</td>"#), "1 applied, 1 conflict")
        let ben = try #require(Self.row(containing: "ben-tablet", in: body))
        #expect(ben.contains("1.9.0") && ben.contains("Below minimum"))
        #expect(body.contains("1 device runs an app below the minimum version."))
    }

    @Test("A device's journal shows each op with a plain-language outcome and filters by status")
    func journal() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        _ = try ReviewScenario.open(server)
        let browser = try server.signedIn()
        let page = try browser.get("/admin/sync/devices/ana-phone")
        #expect(page.status == 200)
        #expect(page.body.contains("Needs your review") && page.body.contains("Someone else changed the same fields first"))
        #expect(page.body.contains("REVIEW_REQUIRED") && page.body.contains("Applied") && page.body.contains("Made on device"))
        let applied = try browser.get("/admin/sync/devices/ana-phone?status=applied").body
        #expect(applied.contains("ana-phone-op-1") && !applied.contains("ana-phone-op-2"))
        #expect(!applied.contains("Someone else changed the same fields first"))
        #expect(try browser.get("/admin/sync/devices/nobody").status == 404)
        #expect(try browser.get("/admin/sync/devices/ana-phone?status=bogus").status == 404)
    }

    @Test("The journal exports as CSV with quoting and formula guards, and as JSON, both as attachments")
    func exports() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        try Self.insertOp(
            server, device: "dev-csv", opId: "op-1", record: "=HYPERLINK(1)", status: "rejected", code: "VALIDATION_FAILED",
            message: "qty, \"too\" big\nsecond line")
        let browser = try server.signedIn()
        let csv = try browser.get("/admin/sync/devices/dev-csv?format=csv")
        #expect(csv.status == 200 && csv.header("Content-Type") == "text/csv; charset=utf-8")
        #expect(csv.header("Content-Disposition") == #"attachment; filename="journal-dev-csv.csv""#)
        let lines = csv.body.components(separatedBy: "\r\n")
        #expect(lines[0].hasPrefix("receivedAt,occurredAt,decidedAt,deviceId,opId,clientSeq,collection,recordId,type,fields"))
        #expect(lines[1].contains(",dev-csv,op-1,1,jobs,'=HYPERLINK(1),update,status,admin,rejected,Rejected,VALIDATION_FAILED,"))
        #expect(csv.body.contains(#""qty, ""too"" big"# + "\nsecond line\""))
        #expect(lines[1].hasPrefix("20") && lines[1].contains(",2026-06-15T08:00:00Z,"))

        let json = try browser.get("/admin/sync/devices/dev-csv?format=json")
        #expect(json.header("Content-Disposition") == #"attachment; filename="journal-dev-csv.json""#)
        let document = try JSONDecoder().decode(JSONValue.self, from: Data(json.body.utf8))
        #expect(document["deviceId"] == "dev-csv")
        guard case .array(let ops)? = document["ops"] else {
            Issue.record("no ops array")
            return
        }
        #expect(ops.count == 1 && ops[0]["recordId"] == "=HYPERLINK(1)" && ops[0]["status"] == "rejected")
        #expect(ops[0]["explanation"] == "A value was missing or of the wrong kind." && ops[0]["message"] == "qty, \"too\" big\nsecond line")
    }

    @Test("A record's history lists every op that touched it, in the order the server settled them")
    func recordHistory() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        _ = try ReviewScenario.open(server)
        let page = try server.signedIn().get("/admin/sync/records/reports/rep-1")
        #expect(page.status == 200)
        let body = page.body
        let order = try ["ana-phone-op-1", "ben-tablet-op-1", "ana-phone-op-2"].map { try #require(body.range(of: $0)).lowerBound }
        #expect(order == order.sorted())
        #expect(body.contains("Now on the server") && body.contains("Open the conflict"))
        #expect(try server.signedIn().get("/admin/sync/records/reports/none").status == 404)
    }

    @Test("Supervisors see only their team's devices and records, read-only")
    func supervisorScope() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        _ = try ReviewScenario.open(server)
        try server.createUser("sam", role: .supervisor, team: "north")
        try server.createUser("sue", role: .supervisor, team: "south")
        let sam = try server.signedIn(as: "sam")
        #expect(try sam.get("/admin/sync").body.contains("ana-phone"))
        #expect(try sam.get("/admin/sync/devices/ana-phone").status == 200)
        #expect(try sam.get("/admin/sync/records/reports/rep-1").status == 200)
        let sue = try server.signedIn(as: "sue")
        let list = try sue.get("/admin/sync")
        #expect(list.status == 200 && !list.body.contains("ana-phone") && list.body.contains("No device has synced yet"))
        #expect(try sue.get("/admin/sync/devices/ana-phone").status == 403)
        #expect(try sue.get("/admin/sync/devices/ana-phone?format=csv").status == 403)
        #expect(try sue.get("/admin/sync/records/reports/rep-1").status == 403)
        try server.createUser("lone", role: .supervisor)
        let lone = try server.signedIn(as: "lone")
        #expect(try lone.get("/admin/sync").body.contains("You are not in a team yet"))
        #expect(try lone.get("/admin/sync/records/reports/rep-1").status == 403)
        #expect(try lone.get("/admin/sync/devices/ana-phone").status == 403)
    }

    @Test("Markup in a device id or a record value is shown as text on the queue, detail, journal and history pages")
    func escaping() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        let scenario = try ReviewScenario.open(server)
        let device = "x<script>alert(1)"
        try Self.insertOp(server, device: device, opId: "op-x", record: "r<script>alert(2)", status: "applied", code: nil, message: "")
        try server.database.withConnection { db in
            try db.execute(
                """
                INSERT INTO conflicts (id, collection, record_id, author_id, device_id, state, scope_keys, entry)
                SELECT 'c-x', 'jobs', 'r<script>alert(2)', id, \(device), 'open', ARRAY['team:north'],
                  jsonb_build_object('id', 'c-x', 'collection', 'jobs', 'recordId', 'r<script>alert(2)', 'opId', 'op-x', 'deviceId', \(device)::text,
                    'authorId', id, 'state', 'open', 'openedAt', '2026-06-15T09:00:00Z', 'fields', '[]'::jsonb,
                    'deviceRevision', '{}'::jsonb, 'serverRevision', '{}'::jsonb)
                FROM users WHERE username = 'admin'
                """)
        }
        let browser = try server.signedIn()
        let pages = [
            "/admin/conflicts", "/admin/conflicts/\(scenario.conflictId)", "/admin/conflicts/c-x", "/admin/sync",
            "/admin/sync/devices/x%3Cscript%3Ealert(1)", "/admin/sync/devices/ana-phone", "/admin/sync/records/reports/rep-1",
            "/admin/sync/records/jobs/r%3Cscript%3Ealert(2)",
        ]
        for path in pages {
            let page = try browser.get(path)
            #expect(page.status == 200, "\(path)")
            #expect(!page.body.contains("<script>"), "\(path)")
        }
        #expect(try browser.get("/admin/conflicts/\(scenario.conflictId)").body.contains("&lt;script&gt;alert(&#39;device&#39;)&lt;/script&gt;"))
        #expect(try browser.get("/admin/sync").body.contains("x&lt;script&gt;alert(1)"))
        #expect(try browser.get("/admin/conflicts").body.contains("r&lt;script&gt;alert(2)"))
    }
}
