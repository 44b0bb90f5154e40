import Cryptography
import Foundation
import SyncEngine
import Templating

/// Paging of a back-office list with plain links: reads the `after` parameter and builds
/// the "Showing 101–200 of 1,234 · Next page →" navigation under the table.
///
/// `after` is an opaque token, base64url of a small JSON document holding the store's
/// `PageCursor` and how many rows the earlier pages showed (only for the "101–200" text).
/// A token this server did not write is refused with the 400 page (see `BackOfficePages`).
struct Pager {
    static let parameter = "after"
    /// More rows than any list holds; a larger count in a token is forged, and would
    /// overflow the "101–200" arithmetic.
    static let maxShown = 1 << 40

    /// Where this page starts; nil on the first page.
    let cursor: PageCursor?
    /// Rows shown on the earlier pages.
    let before: Int

    /// The token as a link carries it.
    private struct Token: Codable {
        let after: [String]
        let shown: Int
    }

    /// The position the query's `after` names; the first page when it is absent or empty.
    /// - Throws: `PageCursor.Invalid` when `after` is not a token of this server.
    init(_ query: [String: String]) throws {
        guard let text = query[Self.parameter], !text.isEmpty else {
            (cursor, before) = (nil, 0)
            return
        }
        guard text.utf8.count <= 4096, let data = Data(base64URLEncoded: text), let token = try? JSONDecoder().decode(Token.self, from: data),
            !token.after.isEmpty, (0...Self.maxShown).contains(token.shown)
        else { throw PageCursor.Invalid() }
        (cursor, before) = (PageCursor(token.after), token.shown)
    }

    /// The `after` token of the page that follows `shown` rows and starts after `cursor`.
    static func token(after cursor: PageCursor, shown: Int) -> String {
        // Sorted keys: the same position always gets the same link (the encoder's key order
        // otherwise varies from call to call).
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = (try? encoder.encode(Token(after: cursor.values, shown: shown))) ?? Data()
        return json.base64URLEncodedString()
    }

    /// The navigation under a page of `count` rows, or nil when the whole list fits on the
    /// first page. Links go to `path` with `filters` kept; `total` (when cheap to know)
    /// counts the rows of every page.
    func navigation(path: String, filters: [(String, String)], count: Int, total: Int?, next: PageCursor?) -> TemplateValue {
        guard cursor != nil || next != nil else { return .null }
        func link(_ pairs: [(String, String)]) -> String { Self.link(path, pairs) }
        let of = total.map { " of \(Formatting.count($0))" } ?? ""
        let range =
            count == 0
            ? "No more rows after this point\(total.map { "; \(Formatting.count($0)) in all" } ?? "")."
            : "Showing \(Formatting.count(before + 1))–\(Formatting.count(before + count))\(of)"
        return [
            "range": .string(range),
            "firstPath": cursor == nil ? .null : .string(link(filters)),
            "nextPath": next.map { .string(link(filters + [(Self.parameter, Self.token(after: $0, shown: before + count))])) } ?? .null,
        ]
    }

    /// The address of this page of the list at `path`, `filters` kept: where an action taken
    /// on one of its rows comes back to.
    func address(path: String, filters: [(String, String)]) -> String {
        Self.link(path, filters + (cursor.map { [(Self.parameter, Self.token(after: $0, shown: before))] } ?? []))
    }

    private static func link(_ path: String, _ pairs: [(String, String)]) -> String {
        pairs.isEmpty ? path : path + "?" + SafeRedirect.encodeQuery(pairs)
    }

    /// What the 400 page says when a list's `after` link is damaged.
    static let invalidMessage =
        "This page link is damaged or incomplete, so the list can't continue from it. Open the list again from its first page."
}
