import Foundation
import HTTP

/// Where to send a browser after signing in: only paths on this server.
enum SafeRedirect {
    /// Where a signed-in user lands when no (valid) destination was asked for.
    static let home = Area.dashboard.path

    /// `candidate` when it is a local path, else nil.
    ///
    /// Refused: anything not starting with a single `/` (absolute and scheme-relative
    /// URLs such as `//evil.example`), backslashes (browsers read `/\evil.example` as
    /// `//evil.example`) and control characters (header splitting).
    static func localPath(_ candidate: String?) -> String? {
        guard let candidate, candidate.hasPrefix("/"), !candidate.hasPrefix("//"), candidate.count <= 2048 else { return nil }
        let refused = candidate.unicodeScalars.contains { $0 == "\\" || $0.properties.generalCategory == .control }
        return refused ? nil : candidate
    }

    /// The URL of the sign-in page that returns to `request`'s page afterwards.
    ///
    /// A GET comes back to the same path and query. A form post cannot be replayed by
    /// a redirect, and its path may have no page of its own, so it leads home.
    static func loginURL(returningTo request: Request, expired: Bool) -> String {
        var query: [(String, String)] = []
        if request.method == .GET || request.method == .HEAD {
            let search = request.query.isEmpty ? "" : "?" + encodeQuery(request.query.sorted { $0.key < $1.key })
            query.append(("next", request.path + search))
        }
        if expired { query.append(("expired", "1")) }
        return query.isEmpty ? "/login" : "/login?" + encodeQuery(query)
    }

    /// `name=value&…` with both sides percent-encoded for a query string.
    static func encodeQuery(_ pairs: [(String, String)]) -> String {
        pairs.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&")
    }

    private static let unreserved = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~/")

    private static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }
}
