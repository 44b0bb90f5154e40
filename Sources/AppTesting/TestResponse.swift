public import Foundation
public import SyncProtocol

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP answer as a test sees it: status, headers, raw body and decoding helpers.
///
/// ```swift
/// let response = try await client.get("/v1/config", token: token)
/// #expect(response.status == 200)
/// let config = try response.decode(ConfigResponse.self)
/// #expect(try response.errorEnvelope().error.code == .unauthenticated)   // for a non-2xx
/// ```
public struct TestResponse: Sendable, CustomStringConvertible {
    public let status: Int
    /// Header fields as received; names compare case-insensitively through `header(_:)`.
    public let headers: [String: String]
    public let body: Data

    public init(status: Int, headers: [String: String], body: Data) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The value of a header field, matched case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// The body as UTF-8 text.
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The body decoded as `T` (RFC 3339 dates).
    /// - Throws: `DecodingError` when the body is not a `T`.
    public func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(type, from: body)
    }

    /// The body as a generic JSON value.
    public func json() throws -> JSONValue { try decode(JSONValue.self) }

    /// The protocol's error envelope of a non-2xx answer.
    public func errorEnvelope() throws -> ErrorEnvelope { try decode(ErrorEnvelope.self) }

    /// `error.code` of the envelope, or nil when the body is not one.
    public var errorCode: String? { (try? errorEnvelope())?.error.code.rawValue }

    /// Cookies the server set (name to value), parsed from `Set-Cookie`. Nothing is stored
    /// implicitly: pass them back through the `cookies:` argument of the next request.
    public var setCookies: [String: String] {
        guard let url = URL(string: "http://127.0.0.1/") else { return [:] }
        let cookies = HTTPCookie.cookies(withResponseHeaderFields: headers, for: url)
        return Dictionary(cookies.map { ($0.name, $0.value) }, uniquingKeysWith: { _, last in last })
    }

    public var description: String { "HTTP \(status) \(text.prefix(500))" }
}
