import Foundation
import Postgres
import SyncProtocol
import Testing

/// Reading paged back-office lists the way a browser without JavaScript does: follow the
/// "Next page →" link until there is none.
enum Paging {
    /// Every page of the list at `start`, in order, each checked to be a 200 page.
    static func pages(_ browser: Browser, from start: String) throws -> [String] {
        var bodies: [String] = []
        var target: String? = start
        while let path = target {
            let page = try browser.get(path)
            try #require(page.status == 200, "\(path) answered \(page.status)")
            bodies.append(page.body)
            target = nextLink(page.body)
            try #require(bodies.count < 100, "paging does not end")
        }
        return bodies
    }

    /// The href of the page's "Next page" link, unescaped.
    static func nextLink(_ body: String) -> String? {
        href(in: body, before: #"" rel="next""#)
    }

    /// The href of the page's "Back to first page" link, unescaped.
    static func firstLink(_ body: String) -> String? {
        href(in: body, before: #"">← Back to first page"#)
    }

    /// What follows each `marker` up to the next quote or tag: the ids the rows link to or show.
    static func values(after marker: String, in body: String) -> [String] {
        body.components(separatedBy: marker).dropFirst().map { String($0.prefix { $0 != "\"" && $0 != "<" }) }
    }

    private static func href(in body: String, before end: String) -> String? {
        guard let close = body.range(of: end), let open = body[..<close.lowerBound].range(of: #"href=""#, options: .backwards) else { return nil }
        return body[open.upperBound..<close.lowerBound].replacingOccurrences(of: "&amp;", with: "&")
    }

    /// Inserts `count` ops of `device` on `record` (or a record per op), all received in one
    /// statement so they share their receive time; every fourth is rejected.
    static func seedOps(_ server: WebTestServer, device: String, count: Int, record: String? = nil) throws {
        try server.database.withConnection { db in
            try db.execute(
                """
                INSERT INTO devices (device_id, user_id, app_version, last_sync_at)
                SELECT \(device), id, '2.1.0', now() FROM users WHERE username = 'admin' ON CONFLICT DO NOTHING
                """)
            try db.execute(
                """
                INSERT INTO op_log (device_id, op_id, client_seq, entity_key, author_id, collection, record_id, status, result, fingerprint, body)
                SELECT \(device), \(device) || '-op-' || lpad(g::text, 5, '0'), g % 7, 'k', 'u', 'jobs', COALESCE(\(record), 'r-' || g),
                       CASE WHEN g % 4 = 0 THEN 'rejected' ELSE 'applied' END, '{}', 'f', '{"type": "update"}'
                FROM generate_series(1, \(count)) g
                """)
        }
    }
}

@Suite("Paged back-office lists, over HTTP")
struct WebPagingTests {
    /// Open conflicts opened in groups of ten at the same microsecond; every tenth one resolved.
    static func seedConflicts(_ server: WebTestServer, count: Int) throws {
        try server.database.withConnection { db in
            try db.execute(
                """
                INSERT INTO conflicts (id, collection, record_id, author_id, device_id, state, opened_at, scope_keys, entry)
                SELECT 'c-' || g, CASE WHEN g % 2 = 0 THEN 'jobs' ELSE 'reports' END, 'r-' || g, 'u', 'd', CASE WHEN g % 10 = 0 THEN 'resolved' ELSE 'open' END,
                       timestamptz '2026-06-15 08:00:00+00' + (g / 10) * interval '1 microsecond', ARRAY['team:' || CASE WHEN g % 3 = 0 THEN 'north' ELSE 'south' END],
                       jsonb_build_object('id', 'c-' || g, 'collection', 'jobs', 'recordId', 'r-' || g, 'opId', 'o', 'deviceId', 'd', 'authorId', 'u',
                         'state', 'open', 'openedAt', '2026-06-15T08:00:00Z', 'fields', '[]'::jsonb, 'deviceRevision', '{}'::jsonb, 'serverRevision', '{}'::jsonb)
                FROM generate_series(1, \(count)) g
                """)
        }
    }

    @Test("The conflict queue's next links reach every open conflict exactly once, oldest first, keeping the filters")
    func conflictQueue() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        try Self.seedConflicts(server, count: 260)
        let browser = try server.signedIn()
        let pages = try Paging.pages(browser, from: "/admin/conflicts")
        let seen = pages.flatMap { Paging.values(after: #"<a class="strong mono" href="/admin/conflicts/"#, in: $0) }
        let expected = try server.database.withConnection { db in
            try db.query("SELECT id FROM conflicts WHERE state = 'open' ORDER BY opened_at, id").map { try $0.decode(0, as: String.self) }
        }
        #expect(pages.count == 3 && seen == expected && Set(seen).count == 234)
        #expect(pages[0].contains("Showing 1–100 of 234") && pages[2].contains("Showing 201–234 of 234"))
        #expect(Paging.firstLink(pages[0]) == nil && Paging.firstLink(pages[2]) == "/admin/conflicts")

        let filtered = try Paging.pages(browser, from: "/admin/conflicts?collection=jobs&team=north")
        let matching = filtered.flatMap { Paging.values(after: #"<a class="strong mono" href="/admin/conflicts/"#, in: $0) }
        let expectedMatching = try server.database.withConnection { db in
            try db.query(
                "SELECT id FROM conflicts WHERE state = 'open' AND collection = 'jobs' AND scope_keys = ARRAY['team:north'] ORDER BY opened_at, id"
            ).map { try $0.decode(0, as: String.self) }
        }
        #expect(matching == expectedMatching && filtered.count == 1, "the matching conflicts fit on one page, so no pager")
        #expect(!filtered[0].contains(#"class="pager""#))
        let small = try Paging.pages(browser, from: "/admin/conflicts?collection=jobs")
        #expect(small.count == 2 && small[0].contains("104 matching conflicts"))
        let next = try #require(Paging.nextLink(small[0]))
        #expect(next.hasPrefix("/admin/conflicts?collection=jobs&after=") && Paging.firstLink(small[1]) == "/admin/conflicts?collection=jobs")
    }

    @Test("The order list pages every submitted order once, and the status filter rides along")
    func orders() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        try server.database.withConnection { db in
            try db.execute(
                """
                INSERT INTO records (collection, record_id, payload, field_meta, server_seq, schema_version, created_at)
                SELECT 'orders', 'ord-' || lpad(g::text, 4, '0'),
                       jsonb_build_object('customerId', 'cu', 'lines', '[{"sku": "A", "qty": 1}]'::jsonb,
                         'status', CASE WHEN g % 9 = 0 THEN 'CONFIRMED' ELSE 'SUBMITTED' END),
                       '{}', 5000 + g, 3, timestamptz '2026-06-15 08:00:00+00' + (g % 50) * interval '1 second'
                FROM generate_series(1, 240) g
                """)
        }
        let browser = try server.signedIn()
        let pages = try Paging.pages(browser, from: "/admin/orders")
        let seen = pages.flatMap { Paging.values(after: #"<a class="strong mono" href="/admin/orders/"#, in: $0) }
        #expect(pages.count == 3 && seen.count == 214 && Set(seen).count == 214 && pages[1].contains("Showing 101–200 of 214"))
        #expect(Paging.nextLink(pages[0])?.hasPrefix("/admin/orders?status=SUBMITTED&after=") == true)
        let confirmed = try Paging.pages(browser, from: "/admin/orders?status=CONFIRMED")
        #expect(confirmed.count == 1 && Paging.values(after: #"<a class="strong mono" href="/admin/orders/"#, in: confirmed[0]).count == 26)
    }

    @Test("A device journal pages newest first through every op, the filter kept; the CSV and JSON exports hold the whole journal")
    func journalAndExports() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        try Paging.seedOps(server, device: "dev-big", count: 2_345)
        let browser = try server.signedIn()
        let pages = try Paging.pages(browser, from: "/admin/sync/devices/dev-big")
        let seen = pages.flatMap { Paging.values(after: #"<span class="sub mono">"#, in: $0) }
        #expect(pages.count == 12 && seen.count == 2_345 && Set(seen).count == 2_345)
        #expect(pages[11].contains("Showing 2,201–2,345 of 2,345"))

        let rejected = try Paging.pages(browser, from: "/admin/sync/devices/dev-big?status=rejected")
        let rejectedSeen = rejected.flatMap { Paging.values(after: #"<span class="sub mono">"#, in: $0) }
        #expect(rejected.count == 3 && rejectedSeen.count == 586 && Set(rejectedSeen).count == 586)
        #expect(Paging.nextLink(rejected[0])?.hasPrefix("/admin/sync/devices/dev-big?status=rejected&after=") == true)

        let csv = try browser.get("/admin/sync/devices/dev-big?format=csv")
        let lines = csv.body.components(separatedBy: "\r\n").dropFirst().filter { !$0.isEmpty }
        #expect(csv.status == 200 && lines.count == 2_345 && Set(lines.map { $0.components(separatedBy: ",")[4] }).count == 2_345)
        let rejectedCSV = try browser.get("/admin/sync/devices/dev-big?format=csv&status=rejected")
        #expect(rejectedCSV.body.components(separatedBy: "\r\n").filter { !$0.isEmpty }.count == 587)

        let json = try JSONDecoder().decode(JSONValue.self, from: Data(try browser.get("/admin/sync/devices/dev-big?format=json").body.utf8))
        guard case .array(let ops)? = json["ops"] else {
            Issue.record("no ops array")
            return
        }
        #expect(json["deviceId"] == "dev-big" && ops.count == 2_345 && Set(ops.compactMap { $0["opId"]?.stringValue }).count == 2_345)
        let none = try JSONDecoder().decode(
            JSONValue.self, from: Data(try browser.get("/admin/sync/devices/dev-big?format=json&status=conflict").body.utf8))
        #expect(none["ops"] == [] && none["deviceId"] == "dev-big", "an empty export is still one valid document")
    }

    @Test("A record's history pages through every op from every device")
    func recordHistory() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        try Paging.seedOps(server, device: "dev-a", count: 150, record: "r-shared")
        try Paging.seedOps(server, device: "dev-b", count: 150, record: "r-shared")
        let pages = try Paging.pages(try server.signedIn(), from: "/admin/sync/records/jobs/r-shared")
        let seen = pages.flatMap { Paging.values(after: #"<span class="sub mono">"#, in: $0) }
        #expect(pages.count == 2 && seen.count == 300 && Set(seen).count == 300)
        #expect(Paging.firstLink(pages[1]) == "/admin/sync/records/jobs/r-shared")
    }

    @Test("The device list pages for everyone; a supervisor's pages hold only the own team's devices")
    func deviceList() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        try server.createUser("ana", role: .field, team: "north")
        try server.createUser("bob", role: .field, team: "south")
        try server.createUser("sam", role: .supervisor, team: "north")
        try server.database.withConnection { db in
            try db.execute(
                """
                INSERT INTO devices (device_id, user_id, app_version, last_sync_at)
                SELECT CASE WHEN g <= 230 THEN 'north-' ELSE 'south-' END || g, u.id, '2.1.0',
                       CASE WHEN g % 7 = 0 THEN NULL ELSE now() - (g % 13) * interval '1 minute' END
                FROM generate_series(1, 290) g JOIN users u ON u.username = CASE WHEN g <= 230 THEN 'ana' ELSE 'bob' END
                """)
        }
        let device = #"<a class="strong mono" href="/admin/sync/devices/"#
        let all = try Paging.pages(try server.signedIn(), from: "/admin/sync")
        #expect(all.count == 2 && Set(all.flatMap { Paging.values(after: device, in: $0) }).count == 290 && all[1].contains("of 290"))
        let own = try Paging.pages(try server.signedIn(as: "sam"), from: "/admin/sync")
        let seen = own.flatMap { Paging.values(after: device, in: $0) }
        #expect(own.count == 2 && seen.count == 230 && Set(seen).count == 230 && seen.allSatisfy { $0.hasPrefix("north-") })
    }

    @Test("A damaged or foreign page link answers the 400 page on every list, and never a 500")
    func invalidLinks() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        try Self.seedConflicts(server, count: 120)
        try Paging.seedOps(server, device: "dev-1", count: 250, record: "r-1")
        let browser = try server.signedIn()
        let journalToken = try #require(Paging.nextLink(try browser.get("/admin/sync/devices/dev-1").body)?.components(separatedBy: "after=").last)
        let conflictToken = try #require(Paging.nextLink(try browser.get("/admin/conflicts").body)?.components(separatedBy: "after=").last)
        let hostile = ["garbage", "abc%2B%2F%3D", "eyJhZnRlciI6WzFdfQ", String(conflictToken.dropLast(4)), String(repeating: "x", count: 6000)]
        let lists = ["/admin/conflicts", "/admin/orders", "/admin/sync", "/admin/sync/devices/dev-1", "/admin/sync/records/jobs/r-1"]
        for list in lists {
            for token in hostile {
                let page = try browser.get(list + "?after=" + token)
                #expect(page.status == 400, "\(list) with \(token.prefix(20))")
                #expect(page.body.contains("This page link is damaged or incomplete"), "\(list)")
            }
        }
        #expect(try browser.get("/admin/conflicts?after=" + journalToken).status == 400, "a journal cursor does not fit the queue")
        #expect(try browser.get("/admin/sync/devices/dev-1?after=" + conflictToken).status == 400, "a queue cursor does not fit the journal")
        #expect(try browser.get("/admin/conflicts?after=").status == 200, "an empty token is the first page")
    }
}
