import App
import Foundation
import Storage
import SyncEngine
import SyncProtocol
import Testing

@Suite("Back-office access by role, over HTTP")
struct WebAccessTests {
    /// Pages and the roles that may open them; the rest get the 403 page.
    static let pages: [(path: String, roles: Set<Role>)] = [
        ("/admin", [.admin, .dispatcher, .supervisor]),
        ("/admin/users", [.admin]),
        ("/admin/devices", [.admin]),
        ("/admin/settings", [.admin]),
        ("/admin/conflicts", [.admin, .dispatcher]),
        ("/admin/sync", [.admin, .dispatcher, .supervisor]),
        ("/admin/team", [.admin, .supervisor]),
    ]

    @Test("Each page answers the roles that may open it and shows the others the 403 page")
    func roleMatrix() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        let dispatcher = try server.createUser("dina", role: .dispatcher)
        try server.createUser("sam", role: .supervisor, team: "north")
        let browsers: [(Role, Browser)] = [
            (.admin, try server.signedIn()), (.dispatcher, try server.signedIn(as: "dina")), (.supervisor, try server.signedIn(as: "sam")),
        ]
        let userPage = "/admin/users/\(dispatcher.id)"
        let adminOnly: Set<Role> = [.admin]
        for (path, roles) in Self.pages + [(userPage, adminOnly), ("\(userPage)/suspend", adminOnly)] {
            for (role, browser) in browsers {
                let response = try browser.get(path)
                if roles.contains(role) {
                    #expect(response.status == 200, "\(role) \(path)")
                } else {
                    #expect(response.status == 403, "\(role) \(path)")
                    #expect(response.body.contains("You don&#39;t have access to this page"), "\(role) \(path)")
                    #expect(response.header("Content-Type") == "text/html; charset=utf-8")
                }
            }
        }
    }

    @Test("Without a session, pages redirect to sign-in with the page to come back to")
    func anonymous() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        let browser = Browser(port: server.app.port)
        for (path, _) in Self.pages {
            let response = try browser.get(path)
            #expect(response.status == 303)
            #expect(response.location == "/login?next=\(path)")
        }
        #expect(try browser.get("/admin/devices?show=all").location == "/login?next=/admin/devices%3Fshow%3Dall")
        let post = try browser.post("/admin/settings", [("maxOpsPerPush", "10")])
        #expect(post.status == 303 && post.location == "/login")
        #expect(try server.app.core.settings.current().maxOpsPerPush == 50)
    }

    @Test("Forms a role may not use are refused even with a valid token, and nothing changes")
    func readOnlyRoles() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        let field = try server.createUser("ana", role: .field)
        try server.createUser("dina", role: .dispatcher)
        let issued = try server.app.core.accounts.issueToken(userId: field.id, deviceId: "dev-1", platform: nil, appVersion: nil, lifetime: 3600)
        let tokenId = try #require(try server.app.core.accounts.listTokens().first?.tokenId)
        let dispatcher = try server.signedIn(as: "dina")
        let attempts: [(String, [(String, String)])] = [
            ("/admin/users", [("username", "mallory"), ("role", "admin"), ("password", "long-enough-1")]),
            ("/admin/settings", [("minSupportedAppVersion", "9.0.0"), ("maxOpsPerPush", "10")]),
            ("/admin/users/\(field.id)/suspend", []),
            ("/admin/users/\(field.id)/password", [("password", "taken-over-1"), ("repeat", "taken-over-1")]),
            ("/admin/devices/\(tokenId)/revoke", []),
        ]
        for (path, fields) in attempts {
            #expect(try dispatcher.submit(path, from: "/admin", fields).status == 403, "\(path)")
        }
        #expect(try server.app.core.accounts.countUsers() == 3)
        #expect(try server.app.core.settings.current() == ServerSettings())
        #expect(try server.app.core.accounts.user(id: field.id)?.suspended == false)
        #expect(try server.app.core.accounts.grant(token: issued.token) != nil)
        #expect(
            try server.app.feature(AccountsFeature.self)!.login.login(username: "ana", password: WebTestServer.password, address: "test").id
                == field.id)
    }

    @Test("Unknown back-office paths get the HTML 404 page; device paths keep their JSON errors")
    func notFound() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        let admin = try server.signedIn()
        let page = try admin.get("/admin/nowhere")
        #expect(page.status == 404)
        #expect(page.body.contains("Page not found") && page.body.contains(#"href="/admin/settings""#), "with the viewer's navigation")
        #expect(try admin.get("/admin/users/u-missing").status == 404)
        let api = try admin.get("/v1/nowhere")
        #expect(api.status == 404 && api.header("Content-Type")?.hasPrefix("application/json") == true)
        #expect(try admin.get("/").location == "/admin")
    }

    @Test("Static files come from Public with caching headers; nothing outside it is reachable")
    func staticFiles() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        let browser = Browser(port: server.app.port)
        let css = try browser.get("/static/app.css")
        #expect(css.status == 200 && css.header("Content-Type") == "text/css; charset=utf-8")
        #expect(css.header("Cache-Control") == "public, max-age=300")
        let login = try browser.get("/login")
        let versioned = try #require(login.body.range(of: #"/static/app\.css\?v=[0-9a-f]{12}"#, options: .regularExpression))
        #expect(try browser.get(String(login.body[versioned])).header("Cache-Control") == "public, max-age=31536000, immutable")
        for path in ["/static/../Package.swift", "/static/%2e%2e/Package.swift", "/static/..%2fPackage.swift", "/static//etc/passwd"] {
            let response = try browser.get(path)
            #expect(response.status == 404, "\(path)")
            #expect(!response.body.contains("PackageDescription"), "\(path)")
        }
    }
}
