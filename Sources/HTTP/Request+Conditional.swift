import Foundation

extension Request {
    /// Whether the `If-None-Match` header names `etag` (or is `*`): the client's copy is
    /// current and a 304 answers. Weak tags compare equal too (RFC 9110 §13.1.2).
    public func ifNoneMatch(_ etag: String) -> Bool {
        guard let candidates = headers["if-none-match"] else { return false }
        return candidates.split(separator: ",").contains { candidate in
            let tag = candidate.trimmingCharacters(in: .whitespaces)
            return tag == "*" || tag == etag || tag == "W/" + etag
        }
    }
}
