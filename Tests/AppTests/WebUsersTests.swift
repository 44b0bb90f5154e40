import App
import Foundation
import Storage
import SyncEngine
import SyncProtocol
import Testing

@Suite("Users and devices pages, over HTTP")
struct WebUsersTests {
    static let hostile = "<script>alert(1)</script>"
    static let escaped = "&lt;script&gt;alert(1)&lt;/script&gt;"

    @Test("A team name holding a script renders escaped on every page it appears on")
    func teamIsEscaped() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        let admin = try server.signedIn()
        let created = try admin.submit(
            "/admin/users", from: "/admin/users",
            [("username", "nina"), ("role", "supervisor"), ("team", Self.hostile), ("password", WebTestServer.password)])
        #expect(created.status == 303)
        let userPage = try #require(created.location?.components(separatedBy: "?").first)
        #expect(created.location == userPage + "?notice=created")
        let supervisor = try server.signedIn(as: "nina")
        for body in [try admin.get("/admin/users").body, try admin.get(userPage).body, try supervisor.get("/admin").body] {
            #expect(body.contains(Self.escaped))
            #expect(!body.contains("<script>"))
        }
    }

    @Test("A refused user name is shown back escaped, next to its field, and nothing is created")
    func invalidUsername() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        let admin = try server.signedIn()
        let response = try admin.submit(
            "/admin/users", from: "/admin/users",
            [("username", "\"><script>x()</script>"), ("role", "field"), ("team", "north"), ("password", WebTestServer.password)])
        #expect(response.status == 422)
        #expect(response.body.contains("Use up to 64 letters, digits, dots, dashes or underscores"))
        #expect(response.body.contains(#"value="&quot;&gt;&lt;script&gt;x()&lt;/script&gt;""#))
        #expect(response.body.contains(#"value="north""#), "the other fields keep their input")
        #expect(!response.body.contains("<script>x()"))
        #expect(try server.app.core.accounts.countUsers() == 1)
        let short = try admin.submit("/admin/users", from: "/admin/users", [("username", "ok"), ("role", "field"), ("password", "short")])
        #expect(short.status == 422 && short.body.contains("Use at least 10 characters."))
        let taken = try admin.submit("/admin/users", from: "/admin/users", [("username", "ADMIN"), ("role", "field"), ("password", "long-enough-1")])
        #expect(taken.status == 422 && taken.body.contains("This user name is already taken."))
    }

    @Test("Creating a user without the session's CSRF token answers 403 and creates nothing")
    func creationNeedsToken() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        let admin = try server.signedIn()
        let otherToken = try #require(try server.signedIn().get("/admin/users").csrfToken)
        let fields = [("username", "mallory"), ("role", "admin"), ("password", "long-enough-1")]
        for token in [nil, "forged", otherToken] {
            let response = try admin.post("/admin/users", fields + (token.map { [("_csrf", $0)] } ?? []))
            #expect(response.status == 403)
            #expect(response.body.contains("nothing was changed"))
        }
        #expect(try server.app.core.accounts.countUsers() == 1)
    }

    @Test("Resetting a password signs the user out and replaces the old password")
    func passwordReset() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        let dina = try server.createUser("dina", role: .dispatcher)
        let dinaBrowser = try server.signedIn(as: "dina")
        let admin = try server.signedIn()
        let page = "/admin/users/\(dina.id)"
        let mismatch = try admin.submit(page + "/password", from: page, [("password", "new-password-1"), ("repeat", "new-password-2")])
        #expect(mismatch.status == 422 && mismatch.body.contains("The two passwords are not the same."))
        let reset = try admin.submit(page + "/password", from: page, [("password", "new-password-1"), ("repeat", "new-password-1")])
        #expect(reset.location == page + "?notice=password")
        #expect(try dinaBrowser.get("/admin").status == 303)
        #expect(try Browser(port: server.app.port).signIn("dina", password: WebTestServer.password).status == 401)
        #expect(try Browser(port: server.app.port).signIn("dina", password: "new-password-1").status == 303)
    }

    @Test("Suspension asks first, then locks the user out until reactivated")
    func suspension() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        let dina = try server.createUser("dina", role: .dispatcher)
        let admin = try server.signedIn()
        let page = "/admin/users/\(dina.id)"
        let confirm = try admin.get(page + "/suspend")
        #expect(confirm.status == 200)
        #expect(confirm.body.contains("Suspend dina?"))
        #expect(confirm.body.contains(#"<form method="post" action="\#(page)/suspend""#))
        #expect(try server.app.core.accounts.user(id: dina.id)?.suspended == false, "showing the question changes nothing")
        #expect(try admin.submit(page + "/suspend", from: page + "/suspend").location == page + "?notice=suspended")
        #expect(try server.app.core.accounts.user(id: dina.id)?.suspended == true)
        #expect(try admin.get(page).body.contains("Reactivate dina"))
        #expect(try Browser(port: server.app.port).signIn("dina", password: WebTestServer.password).status == 403)
        #expect(try admin.submit(page + "/reactivate", from: page).location == page + "?notice=reactivated")
        #expect(try server.app.core.accounts.user(id: dina.id)?.suspended == false)
        #expect(try Browser(port: server.app.port).signIn("dina", password: WebTestServer.password).status == 303)
    }

    @Test("An administrator cannot suspend their own account")
    func selfSuspension() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        let admin = try server.signedIn()
        let me = try #require(try server.app.core.accounts.listUsers().first)
        let page = "/admin/users/\(me.id)"
        let response = try admin.submit(page + "/suspend", from: page)
        #expect(response.status == 409 && response.body.contains("You cannot suspend your own account."))
        #expect(try server.app.core.accounts.user(id: me.id)?.suspended == false)
    }

    @Test("Device tokens are listed and revoked after confirmation; the device is then refused")
    func deviceTokens() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        let ana = try server.createUser("ana", role: .field)
        let issued = try server.app.core.accounts.issueToken(
            userId: ana.id, deviceId: "dev-4471", platform: "ios", appVersion: "2.3.0", lifetime: 86_400)
        let admin = try server.signedIn()
        let list = try admin.get("/admin/devices")
        #expect(list.body.contains("dev-4471") && list.body.contains("2.3.0"))
        #expect(try admin.get("/admin/users/\(ana.id)").body.contains("dev-4471"))
        let tokenId = try #require(try server.app.core.accounts.listTokens().first?.tokenId)
        let confirmPath = "/admin/devices/\(tokenId)/revoke?return=/admin/users/\(ana.id)"
        let confirm = try admin.get(confirmPath)
        #expect(confirm.body.contains("Sign out device dev-4471?"))
        #expect(try server.app.core.accounts.grant(token: issued.token) != nil)
        let revoked = try admin.submit("/admin/devices/\(tokenId)/revoke", from: confirmPath, [("return", "/admin/users/\(ana.id)")])
        #expect(revoked.location == "/admin/users/\(ana.id)?notice=revoked")
        #expect(try server.app.core.accounts.grant(token: issued.token) == nil)
        #expect(!(try admin.get("/admin/devices").body.contains("dev-4471")))
        #expect(try admin.get("/admin/devices?show=all").body.contains("Signed out"))
        let offsite = try admin.submit("/admin/devices/\(tokenId)/revoke", from: "/admin/devices", [("return", "//evil.example")])
        #expect(offsite.location == "/admin/devices?notice=revoked")
    }
}
