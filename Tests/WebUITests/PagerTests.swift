import Foundation
import SyncEngine
import Templating
import Testing

@testable import WebUI

@Suite("Paging links of the back-office lists")
struct PagerTests {
    @Test("A next-page token carries the cursor and the rows shown, in URL-safe characters only")
    func tokenRoundTrip() throws {
        let cursor = PageCursor(["2026-06-15T09:00:00.000001Z", "id with spaces/+&=?ü"])
        let token = Pager.token(after: cursor, shown: 200)
        #expect(token.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
        let pager = try Pager(["after": token])
        #expect(pager.cursor == cursor && pager.before == 200)
    }

    @Test("No token, or an empty one, is the first page")
    func firstPage() throws {
        #expect(try Pager([:]).cursor == nil)
        #expect(try Pager(["after": ""]).cursor == nil && Pager(["after": ""]).before == 0)
    }

    @Test("Garbage, truncated or hand-made tokens are refused as invalid cursors")
    func invalidTokens() {
        let valid = Pager.token(after: PageCursor(["infinity", "x"]), shown: 5)
        let hostile = [
            "garbage!", "%%%", String(valid.dropLast(3)), "e30",  // `{}`
            Pager.base64URL(#"{"after": [], "shown": 0}"#), Pager.base64URL(#"{"after": ["a"], "shown": -1}"#),
            Pager.base64URL(#"{"after": ["a"], "shown": 9223372036854775807}"#),
            Pager.base64URL(#"{"after": [1, 2], "shown": 0}"#), Pager.base64URL("[\"a\"]"), String(repeating: "A", count: 5000),
        ]
        for token in hostile {
            #expect(throws: PageCursor.Invalid.self, "\(token.prefix(40))") { try Pager(["after": token]) }
        }
    }

    @Test("The navigation keeps the filters, counts the rows shown and offers the first page from later pages")
    func navigation() throws {
        let next = PageCursor(["2026-06-15T09:00:00.000000Z", "c-100"])
        let first = try Pager([:]).navigation(path: "/admin/conflicts", filters: [("team", "north & co")], count: 100, total: 1234, next: next)
        #expect(first["range"] == "Showing 1–100 of 1,234" && first["firstPath"] == .null)
        guard case .string(let nextPath)? = first["nextPath"] else {
            Issue.record("no next page link")
            return
        }
        #expect(nextPath.hasPrefix("/admin/conflicts?team=north%20%26%20co&after="))

        let token = String(nextPath.split(separator: "after=")[1])
        let second = try Pager(["team": "north & co", "after": token])
        let last = second.navigation(path: "/admin/conflicts", filters: [("team", "north & co")], count: 34, total: 1234, next: nil)
        #expect(last["range"] == "Showing 101–134 of 1,234" && last["nextPath"] == .null)
        #expect(last["firstPath"] == "/admin/conflicts?team=north%20%26%20co")
        #expect(second.navigation(path: "/p", filters: [], count: 0, total: nil, next: nil)["range"] == "No more rows after this point.")
        #expect(try Pager([:]).navigation(path: "/p", filters: [], count: 12, total: 12, next: nil) == .null, "one page needs no pager")
    }

    @Test("A page's own address keeps the filters and, past the first page, the position, so an action can come back to it")
    func address() throws {
        #expect(try Pager([:]).address(path: "/admin/devices", filters: []) == "/admin/devices")
        #expect(try Pager([:]).address(path: "/admin/devices", filters: [("show", "all")]) == "/admin/devices?show=all")
        let token = Pager.token(after: PageCursor(["2026-06-15T09:00:00.000000Z", "ab12"]), shown: 100)
        let later = try Pager(["show": "all", "after": token])
        #expect(
            later.address(path: "/admin/devices", filters: [("show", "all")]) == "/admin/devices?show=all&after=" + token,
            "the same position, the same link")
        let again = try Pager(["after": token])
        #expect(again.cursor == later.cursor && again.before == 100)
    }
}

extension Pager {
    /// `text` in the token's alphabet, for hand-made tokens.
    fileprivate static func base64URL(_ text: String) -> String {
        Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
