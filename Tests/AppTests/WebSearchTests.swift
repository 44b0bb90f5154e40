import App
import Foundation
import Postgres
import Storage
import SyncEngine
import SyncProtocol
import Testing

@Suite("Back-office search, over HTTP")
struct WebSearchTests {
    static func path(_ q: String) -> String {
        "/admin/search?q=" + (q.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
    }

    /// The hits listed under `heading`, as their links read; nil when the group is not shown.
    static func links(_ heading: String, in body: String) -> [String]? {
        guard let start = body.range(of: #"">\#(heading) <span class="badge">"#) else { return nil }
        let end = body.range(of: "</section>", range: start.upperBound..<body.endIndex)?.lowerBound ?? body.endIndex
        return body[start.upperBound..<end].components(separatedBy: #"<a class="strong mono" href=""#).dropFirst().map {
            String($0.prefix { $0 != "\"" })
        }
    }

    /// Two teams' users, devices, records and orders, with ids that hold LIKE's wildcards.
    static func seed(_ server: WebTestServer) throws {
        let ana = try server.createUser("ana", role: .field, team: "north")
        let bo = try server.createUser("bo", role: .field, team: "south")
        try server.createUser("sam", role: .supervisor, team: "north")
        try server.createUser("dina", role: .dispatcher)
        let records: [(String, String, String, String)] = [
            ("jobs", "job-north-1", "north", "{}"), ("jobs", "job-south-1", "south", "{}"), ("jobs", "job_a", "north", "{}"),
            ("jobs", "jobxa", "north", "{}"), ("jobs", "50%off", "north", "{}"), ("jobs", #"back\slash"#, "north", "{}"),
            ("orders", "ord-100", "north", #"{"customerId": "cust-ACME", "status": "SUBMITTED"}"#),
            ("orders", "ord-200", "south", #"{"customerId": "cust-zeta", "status": "CONFIRMED"}"#),
        ]
        try server.database.withConnection { db in
            for (index, (collection, id, team, payload)) in records.enumerated() {
                try db.execute(
                    """
                    INSERT INTO records (collection, record_id, payload, field_meta, server_seq, schema_version, team_scope)
                    VALUES (\(collection), \(id), \(payload)::jsonb, '{}', \(index + 1), 3, \("team:" + team))
                    """)
            }
            for (device, user) in [("dev-north-1", ana.id), ("dev-south-1", bo.id)] {
                try db.execute("INSERT INTO devices (device_id, user_id) VALUES (\(device), \(user))")
            }
        }
    }

    @Test("An administrator finds records, devices and orders by the start of their id, users by part of their name")
    func administrator() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        try Self.seed(server)
        let admin = try server.signedIn()
        #expect(Self.links("Records", in: try admin.get(Self.path("JOB-NORTH")).body) == ["/admin/sync/records/jobs/job-north-1"])
        #expect(Self.links("Devices", in: try admin.get(Self.path("dev-s")).body) == ["/admin/sync/devices/dev-south-1"])
        let users = try admin.get(Self.path("n")).body
        #expect(Self.links("Users", in: users)?.count == 3)  // admin, ana, dina
        let byId = try admin.get(Self.path("ord-1")).body
        #expect(Self.links("Orders", in: byId) == ["/admin/orders/ord-100"])
        #expect(byId.contains("Customer cust-ACME · Submitted"))
        #expect(Self.links("Orders", in: try admin.get(Self.path("cust-z")).body) == ["/admin/orders/ord-200"])
        let none = try admin.get(Self.path("nothing-like-this")).body
        #expect(none.contains("No records match."))
        #expect(Self.links("Records", in: none) == [])
    }

    @Test("A supervisor finds only their team's records, devices and members, and no orders")
    func supervisorScope() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        try Self.seed(server)
        let sam = try server.signedIn(as: "sam")
        let jobs = try sam.get(Self.path("job-")).body
        #expect(Self.links("Records", in: jobs) == ["/admin/sync/records/jobs/job-north-1"])
        #expect(Self.links("Records", in: try sam.get(Self.path("job-south")).body) == [])
        #expect(Self.links("Records", in: try sam.get(Self.path("ord-2")).body) == [])
        #expect(Self.links("Devices", in: try sam.get(Self.path("dev-")).body) == ["/admin/sync/devices/dev-north-1"])
        let people = try sam.get(Self.path("a")).body
        #expect(Self.links("Users", in: people) == ["/admin/team?team=north", "/admin/team?team=north"])  // ana, sam
        #expect(Self.links("Orders", in: people) == nil)
        let dina = try server.signedIn(as: "dina").get(Self.path("ord")).body
        #expect(Self.links("Users", in: dina) == nil)
        #expect(Self.links("Orders", in: dina) == ["/admin/orders/ord-100", "/admin/orders/ord-200"])
    }

    @Test("Wildcards and backslashes are matched literally")
    func wildcards() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        try Self.seed(server)
        let admin = try server.signedIn()
        #expect(Self.links("Records", in: try admin.get(Self.path("job_")).body) == ["/admin/sync/records/jobs/job_a"])
        #expect(Self.links("Records", in: try admin.get(Self.path("%")).body) == [])
        #expect(Self.links("Records", in: try admin.get(Self.path("50%")).body) == ["/admin/sync/records/jobs/50%25off"])
        #expect(Self.links("Records", in: try admin.get(Self.path("_")).body) == [])
        #expect(Self.links("Records", in: try admin.get(Self.path(#"back\"#)).body) == ["/admin/sync/records/jobs/back%5Cslash"])
        #expect(Self.links("Records", in: try admin.get(Self.path(#"\"#)).body) == [])
    }

    @Test("Empty, overlong and control-character searches run no query and say why")
    func hostileInput() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        try Self.seed(server)
        let admin = try server.signedIn()
        for q in ["", "   "] {
            let page = try admin.get(Self.path(q))
            #expect(page.status == 200)
            #expect(page.body.contains("Type the start of a record"))
            #expect(Self.links("Records", in: page.body) == nil)
        }
        #expect(try admin.get("/admin/search").status == 200)
        let longest = try admin.get(Self.path(String(repeating: "j", count: 100)))
        #expect(longest.status == 200)
        let overlong = try admin.get(Self.path(String(repeating: "j", count: 101)))
        #expect(overlong.status == 400)
        #expect(overlong.body.contains("Search for at most 100 characters"))
        #expect(overlong.body.contains(#"value="\#(String(repeating: "j", count: 100))""#))
        for q in ["job\u{0}x", "job\tx", "a\u{7F}"] {
            let page = try admin.get(Self.path(q))
            #expect(page.status == 400, "\(q.debugDescription)")
            #expect(page.body.contains("control characters"))
            #expect(!page.body.contains("\u{0}"))
        }
        #expect(Self.links("Records", in: try admin.get(Self.path("\tjob-n\n")).body) == ["/admin/sync/records/jobs/job-north-1"])
        let markup = try admin.get(Self.path(#""><script>x</script>"#)).body
        #expect(!markup.contains("<script>x"))
        #expect(markup.contains(#"value="&quot;&gt;&lt;script&gt;x&lt;/script&gt;""#))
    }

    @Test("Every signed-in page has the search box in its header; field users never reach it")
    func headerBox() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        try Self.seed(server)
        for user in [nil, "sam", "dina"] {
            let body = try server.signedIn(as: user).get("/admin").body
            #expect(body.contains(#"<form class="topbar-search" method="get" action="/admin/search" role="search">"#), "\(user ?? "admin")")
            #expect(body.contains(#"maxlength="100""#))
        }
        #expect(!(try Browser(port: server.app.port).get("/login").body.contains("topbar-search")))
    }
}
