import App
import Foundation
import Postgres
import Storage
import SyncEngine
import SyncProtocol
import Testing

@Suite("Back-office sessions, over HTTP")
struct WebSessionTests {
    @Test("Signing in sets an HttpOnly, SameSite=Lax session cookie whose id is stored only as a hash")
    func signIn() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        let browser = Browser(port: server.app.port)
        let response = try browser.signIn("admin", password: WebTestServer.adminPassword)
        #expect(response.status == 303 && response.location == "/admin")
        let cookie = try #require(response.setCookies.first { $0.hasPrefix("fieldsync_session=") })
        #expect(cookie.hasSuffix("; Path=/; HttpOnly; SameSite=Lax"))
        let id = try #require(browser.cookies["fieldsync_session"])
        #expect(try server.integer("SELECT count(*) FROM web_sessions WHERE id_hash = sha256(convert_to(\(id), 'UTF8'))") == 1)
        #expect(try server.integer("SELECT count(*) FROM web_sessions WHERE position(convert_to(\(id), 'UTF8') IN id_hash) > 0") == 0)
        #expect(try browser.get("/admin").status == 200)
    }

    @Test("Behind a TLS proxy the cookie is also Secure")
    func secureCookie() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        let browser = Browser(port: server.app.port)
        browser.extraHeaders = [("X-Forwarded-Proto", "https")]
        let response = try browser.signIn("admin", password: WebTestServer.adminPassword)
        #expect(response.setCookies.first { $0.hasPrefix("fieldsync_session=") }?.hasSuffix("; Secure") == true)
    }

    @Test("A session ends after 30 idle minutes; each request restarts the idle time")
    func idleExpiry() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        let browser = try server.signedIn()
        for _ in 0..<3 {
            server.clock.advance(minutes: 29)
            #expect(try browser.get("/admin").status == 200)
        }
        server.clock.advance(minutes: 31)
        let expired = try browser.get("/admin/users")
        #expect(expired.status == 303)
        #expect(expired.location == "/login?next=/admin/users&expired=1")
        #expect(try browser.get(expired.location!).body.contains("Your session ended. Please sign in again."))
    }

    @Test("A session ends 12 hours after sign-in however active it is")
    func absoluteExpiry() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        let browser = try server.signedIn()
        for _ in 0..<24 {
            server.clock.advance(minutes: 29)
            #expect(try browser.get("/admin").status == 200)
        }
        server.clock.advance(minutes: 25)  // 12 h 1 min after sign-in
        #expect(try browser.get("/admin").status == 303)
    }

    @Test("Signing out needs the CSRF token, ends the session and clears the cookie")
    func signOut() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        let browser = try server.signedIn()
        let id = try #require(browser.cookies["fieldsync_session"])
        #expect(try browser.post("/logout", []).status == 403)
        #expect(try browser.get("/admin").status == 200, "a forged sign-out changes nothing")
        let response = try browser.submit("/logout", from: "/admin")
        #expect(response.status == 303 && response.location == "/login?signedOut=1")
        #expect(browser.cookies["fieldsync_session"] == nil)
        #expect(try server.integer("SELECT count(*) FROM web_sessions") == 0)
        browser.setCookie("fieldsync_session", id)
        #expect(try browser.get("/admin").location == "/login?next=/admin&expired=1", "the old cookie no longer works")
    }

    @Test("Field users, suspended users and wrong passwords are refused with a clear message and no session")
    func refusals() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        try server.createUser("ana", role: .field)
        try server.createUser("dina", role: .dispatcher)
        try server.app.core.accounts.setSuspended(username: "dina", true)
        let cases: [(String, String, Int, String)] = [
            ("ana", WebTestServer.password, 403, "Field accounts sign in on the FieldSync app."),
            ("dina", WebTestServer.password, 403, "This account is suspended."),
            ("admin", "wrong password", 401, "The user name or password is incorrect."),
            ("nobody", "wrong password", 401, "The user name or password is incorrect."),
        ]
        for (username, password, status, message) in cases {
            let browser = Browser(port: server.app.port)
            let response = try browser.signIn(username, password: password)
            #expect(response.status == status, "\(username)")
            #expect(response.body.contains(message), "\(username)")
            #expect(browser.cookies["fieldsync_session"] == nil)
        }
        #expect(try server.integer("SELECT count(*) FROM web_sessions") == 0)
    }

    @Test("Failed device logins count against the back-office sign-in too")
    func sharedThrottle() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        try server.createUser("dina", role: .dispatcher)
        let device = Browser(port: server.app.port)
        for _ in 0..<5 {
            let body = #"{"username": "dina", "password": "guess", "deviceId": "dev-1"}"#
            #expect(try device.send("POST", "/v1/auth/token", body: Data(body.utf8), contentType: "application/json").status == 401)
        }
        let response = try Browser(port: server.app.port).signIn("dina", password: WebTestServer.password)
        #expect(response.status == 429)
        #expect(response.header("Retry-After") != nil)
        #expect(response.body.contains("Too many failed sign-ins."))
    }

    @Test("A sign-in form without its token is refused")
    func loginForgery() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        let browser = Browser(port: server.app.port)
        let response = try browser.post("/login", [("username", "admin"), ("password", WebTestServer.adminPassword)])
        #expect(response.status == 403)
        #expect(browser.cookies["fieldsync_session"] == nil)
        let other = Browser(port: server.app.port)
        let token = try #require(try other.get("/login").csrfToken)
        let replayed = try browser.post("/login", [("_csrf", token), ("username", "admin"), ("password", WebTestServer.adminPassword)])
        #expect(replayed.status == 403, "a token bound to another browser's nonce")
    }

    @Test(
        "After sign-in the browser returns to the page it asked for, never to another site",
        arguments: [
            ("/admin/settings", "/admin/settings"), ("//evil.example/x", "/admin"), ("https://evil.example", "/admin"), ("/\\evil.example", "/admin"),
        ])
    func returnTo(next: String, expected: String) throws {
        let server = try WebTestServer()
        defer { server.stop() }
        let response = try Browser(port: server.app.port).signIn("admin", password: WebTestServer.adminPassword, next: next)
        #expect(response.location == expected)
    }

    @Test("Suspending a signed-in user ends their session at once")
    func suspensionEndsSession() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        let dina = try server.createUser("dina", role: .dispatcher)
        let browser = try server.signedIn(as: "dina")
        #expect(try server.signedIn().submit("/admin/users/\(dina.id)/suspend", from: "/admin/users/\(dina.id)/suspend").status == 303)
        #expect(try browser.get("/admin").location == "/login?next=/admin&expired=1")
    }
}
