import Foundation
import HTTP
import Testing

@testable import WebUI

@Suite("Redirect targets and cookies")
struct SessionHelpersTests {
    @Test(
        "Only local paths are accepted as the place to return to after sign-in",
        arguments: [
            ("/admin/users?q=1", true), ("/", true), ("//evil.example/x", false), ("https://evil.example", false),
            ("/\\evil.example", false), ("evil", false), ("/admin\r\nSet-Cookie: x=1", false), ("", false),
        ])
    func localPaths(candidate: String, accepted: Bool) {
        #expect((SafeRedirect.localPath(candidate) != nil) == accepted)
    }

    @Test("The sign-in URL returns to the page asked for, with its query, only for GET")
    func loginURL() {
        let get = Request(method: .GET, path: "/admin/devices", query: ["show": "all"])
        #expect(SafeRedirect.loginURL(returningTo: get, expired: false) == "/login?next=/admin/devices%3Fshow%3Dall")
        let post = Request(method: .POST, path: "/admin/settings")
        #expect(SafeRedirect.loginURL(returningTo: post, expired: true) == "/login?expired=1")
    }

    @Test("Cookies are HttpOnly, SameSite=Lax and Path=/, and Secure only behind TLS")
    func cookieAttributes() {
        let plain = Request(method: .GET, path: "/")
        #expect(Cookies.set("a", "1", for: plain) == "a=1; Path=/; HttpOnly; SameSite=Lax")
        let tls = Request(method: .GET, path: "/", headers: ["X-Forwarded-Proto": "https, http"])
        #expect(Cookies.set("a", "1", for: tls) == "a=1; Path=/; HttpOnly; SameSite=Lax; Secure")
        #expect(Cookies.clear("a", for: plain) == "a=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0")
        #expect(!Cookies.cameOverTLS(Request(method: .GET, path: "/", headers: ["X-Forwarded-Proto": "http"])))
    }
}

@Suite("Form bodies")
struct FormDataTests {
    @Test("Fields are percent-decoded, plus is a space, and the first of repeated names wins")
    func decoding() {
        let form = FormData(encoded: "name=Ana+Silva&team=%3Cscript%3E&name=second&flag&empty=")
        #expect(form["name"] == "Ana Silva")
        #expect(form["team"] == "<script>")
        #expect(form.isChecked("flag"))
        #expect(form["empty"] == "")
        #expect(!form.isChecked("absent"))
    }

    @Test("Only url-encoded bodies are read, so other bodies carry no CSRF token")
    func contentType() {
        let body = Array("_csrf=t".utf8)
        let json = Request(method: .POST, path: "/", headers: ["Content-Type": "application/json"], body: .init(body))
        #expect(FormData(json)["_csrf"] == nil)
        let form = Request(
            method: .POST, path: "/", headers: ["Content-Type": "application/x-www-form-urlencoded; charset=UTF-8"], body: .init(body))
        #expect(FormData(form)["_csrf"] == "t")
    }
}
