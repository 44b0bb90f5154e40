import Foundation
import Postgres
import SyncEngine
import SyncProtocol
import Testing

@Suite("Paged users and devices lists, over HTTP")
struct WebAccountPagingTests {
    /// What precedes each listed user's id and each listed token's device id.
    static let userMarker = #"<a class="strong" href="/admin/users/"#
    static let deviceMarker = #"<span class="strong mono">"#

    /// 250 field users named `User-0002`, `user-0003`, … (ids in another order); `User-0004`
    /// has two devices signed in, a third whose token expired before the test clock's now.
    static func seedUsers(_ server: WebTestServer) throws {
        try server.database.withConnection { db in
            try db.execute(
                """
                INSERT INTO users (id, username, role, password_hash)
                SELECT 'u-' || md5(g::text), CASE WHEN g % 2 = 0 THEN 'User-' ELSE 'user-' END || lpad(g::text, 4, '0'), 'field', '!'
                FROM generate_series(1, 250) g
                """)
            try db.execute(
                """
                INSERT INTO device_tokens (token_hash, user_id, device_id, created_at, expires_at)
                SELECT sha256(convert_to('four-' || n, 'UTF8')), 'u-' || md5('4'), 'dev-four-' || n, timestamptz '2026-06-01 08:00:00+00',
                       CASE WHEN n = 3 THEN timestamptz '2026-06-10 00:00:00+00' ELSE timestamptz '2026-09-01 00:00:00+00' END
                FROM generate_series(1, 3) n
                """)
        }
    }

    /// 250 tokens of `owner` in ten sign-in times a microsecond or an hour apart: every fifth
    /// expired and every seventh revoked by the test clock's now, leaving 172 signed in.
    static func seedTokens(_ server: WebTestServer, owner: String) throws {
        try server.database.withConnection { db in
            try db.execute(
                """
                INSERT INTO device_tokens (token_hash, user_id, device_id, platform, created_at, expires_at, revoked_at)
                SELECT sha256(convert_to('t-' || g, 'UTF8')), \(owner), 'dev-' || lpad(g::text, 3, '0'), 'ios',
                       timestamptz '2026-06-01 08:00:00+00' + (g % 5) * interval '1 microsecond' + (g / 50) * interval '1 hour',
                       CASE WHEN g % 5 = 0 THEN timestamptz '2026-06-10 00:00:00+00' ELSE timestamptz '2026-09-01 00:00:00+00' END,
                       CASE WHEN g % 7 = 0 THEN timestamptz '2026-06-12 00:00:00+00' END
                FROM generate_series(1, 250) g
                """)
        }
    }

    /// The first column of `query`'s rows.
    static func strings(_ server: WebTestServer, _ query: PostgresQuery) throws -> [String] {
        try server.database.withConnection { try $0.query(query).map { try $0.decode(0, as: String.self) } }
    }

    @Test("The user list's next links reach every user once in name order; the count stays the total and the tabs stay plain")
    func users() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        try Self.seedUsers(server)
        let pages = try Paging.pages(try server.signedIn(), from: "/admin/users")
        let seen = pages.flatMap { Paging.values(after: Self.userMarker, in: $0) }
        let expected = try Self.strings(server, "SELECT id FROM users ORDER BY lower(username), id")
        #expect(pages.count == 3 && seen == expected && expected.count == 251)
        #expect(pages.allSatisfy { $0.contains("251 accounts.") && $0.contains(#"<a href="/admin/users" class="active""#) })
        #expect(pages.allSatisfy { $0.contains(#"<a href="/admin/devices">Devices</a>"#) })
        #expect(pages[0].contains("Showing 1–100 of 251") && pages[2].contains("Showing 201–251 of 251"))
        #expect(Paging.nextLink(pages[0])?.hasPrefix("/admin/users?after=") == true)
        #expect(Paging.firstLink(pages[0]) == nil && Paging.firstLink(pages[2]) == "/admin/users")

        let four = try #require(pages.joined().components(separatedBy: ">User-0004</a>").dropFirst().first?.components(separatedBy: "</tr>").first)
        #expect(four.contains(#"<td class="num">2</td>"#), "two devices signed in; the expired token does not count")
    }

    @Test("Creating a user works from the paged list: a refused form comes back on the first page, a valid one adds to the total")
    func createUser() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        try Self.seedUsers(server)
        let admin = try server.signedIn()
        let refused = try admin.submit("/admin/users", from: "/admin/users", [("username", "zed"), ("role", "field"), ("password", "short")])
        #expect(refused.status == 422 && refused.body.contains("Use at least 10 characters.") && refused.body.contains(#"value="zed""#))
        #expect(refused.body.contains("251 accounts.") && refused.body.contains("Showing 1–100 of 251"))
        #expect(Paging.values(after: Self.userMarker, in: refused.body).count == 100 && Paging.nextLink(refused.body) != nil)

        let created = try admin.submit("/admin/users", from: "/admin/users", [("username", "zed"), ("role", "field"), ("password", "long-enough-1")])
        #expect(created.status == 303 && created.location?.hasSuffix("?notice=created") == true)
        let pages = try Paging.pages(admin, from: "/admin/users")
        #expect(pages.allSatisfy { $0.contains("252 accounts.") } && pages.last?.contains(">zed</a>") == true)
    }

    @Test("The device list pages newest first through every token once, signed-in or all, each count the total across pages")
    func devices() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        let ana = try server.createUser("ana", role: .field)
        try Self.seedTokens(server, owner: ana.id)
        let browser = try server.signedIn()
        let order = "ORDER BY created_at DESC, token_hash DESC"

        let live = try Paging.pages(browser, from: "/admin/devices")
        let expectedLive = try Self.strings(
            server,
            "SELECT device_id FROM device_tokens WHERE revoked_at IS NULL AND expires_at > \(TestClock.start) \(unescaped: order)")
        #expect(live.count == 2 && live.flatMap { Paging.values(after: Self.deviceMarker, in: $0) } == expectedLive && expectedLive.count == 172)
        #expect(live[1].contains("Showing 101–172 of 172") && Paging.nextLink(live[0])?.hasPrefix("/admin/devices?after=") == true)

        let all = try Paging.pages(browser, from: "/admin/devices?show=all")
        let expected = try Self.strings(server, "SELECT device_id FROM device_tokens \(unescaped: order)")
        #expect(all.count == 3 && all.flatMap { Paging.values(after: Self.deviceMarker, in: $0) } == expected && expected.count == 250)
        #expect(all[2].contains("Showing 201–250 of 250") && Paging.firstLink(all[2]) == "/admin/devices?show=all")
        #expect(Paging.nextLink(all[0])?.hasPrefix("/admin/devices?show=all&after=") == true)
        for page in live + all {
            #expect(page.contains(#"Signed in <span class="count">172</span>"#) && page.contains(#"All sign-ins <span class="count">250</span>"#))
        }
    }

    @Test("Signing a device out from a later page of the list comes back to that page, filter kept")
    func revokeReturnsToPage() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        let ana = try server.createUser("ana", role: .field)
        try Self.seedTokens(server, owner: ana.id)
        let admin = try server.signedIn()
        let first = try admin.get("/admin/devices?show=all")
        let second = try admin.get(try #require(Paging.nextLink(first.body)))
        let link = try #require(Paging.values(after: #"href="/admin/devices/"#, in: second.body).first).replacingOccurrences(of: "&amp;", with: "&")
        let confirmPath = "/admin/devices/" + link
        let back = try #require(URLComponents(string: confirmPath)?.queryItems?.first { $0.name == "return" }?.value)
        #expect(back == Paging.nextLink(first.body))

        let tokenId = try #require(link.components(separatedBy: "/").first)
        let revoked = try admin.submit("/admin/devices/\(tokenId)/revoke", from: confirmPath, [("return", back)])
        #expect(revoked.status == 303 && revoked.location == back + "&notice=revoked")
        let after = try admin.get(try #require(revoked.location))
        #expect(after.status == 200 && after.body.contains("The device was signed out.") && after.body.contains("Showing 101–200 of 250"))
        #expect(try server.integer("SELECT count(*) FROM device_tokens WHERE revoked_at IS NOT NULL") == 36)
    }

    @Test("Only administrators reach any page of either list, whatever its link holds; damaged links get the 400 page")
    func rolesAndBadLinks() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        try Self.seedUsers(server)
        let ana = try server.createUser("ana", role: .field)
        try Self.seedTokens(server, owner: ana.id)
        try server.createUser("dina", role: .dispatcher)
        try server.createUser("sam", role: .supervisor, team: "north")
        let admin = try server.signedIn()
        let usersNext = try #require(Paging.nextLink(try admin.get("/admin/users").body))
        let devicesNext = try #require(Paging.nextLink(try admin.get("/admin/devices?show=all").body))
        for name in ["dina", "sam"] {
            let other = try server.signedIn(as: name)
            for path in [usersNext, devicesNext, "/admin/users?after=garbage", "/admin/devices?after=garbage"] {
                let page = try other.get(path)
                #expect(page.status == 403 && page.body.contains("You don&#39;t have access to this page"), "\(name) \(path)")
            }
        }
        #expect(try admin.get(usersNext).status == 200 && admin.get(devicesNext).status == 200)

        let usersToken = try #require(usersNext.components(separatedBy: "after=").last)
        let hostile = ["garbage", "abc%2B%2F%3D", "eyJhZnRlciI6WzFdfQ", String(usersToken.dropLast(4)), String(repeating: "x", count: 6000)]
        for list in ["/admin/users", "/admin/devices", "/admin/devices?show=all"] {
            for token in hostile {
                let page = try admin.get(list + (list.contains("?") ? "&" : "?") + "after=" + token)
                #expect(page.status == 400 && page.body.contains("This page link is damaged or incomplete"), "\(list) \(token.prefix(20))")
            }
        }
        #expect(try admin.get("/admin/devices?after=" + usersToken).status == 400, "a user cursor does not fit the device list")
        #expect(try admin.get("/admin/users?after=").status == 200, "an empty token is the first page")
    }
}
