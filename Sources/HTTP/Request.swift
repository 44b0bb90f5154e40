public import Foundation

/// One HTTP request as handlers see it: parsed by libmicrohttpd, body complete.
///
/// ```swift
/// router.add(.PUT, "/v1/attachments/{attId}/chunks/{index}") { request in
///     let attId = try request.parameter("attId")
///     let draft = try request.decode(ChunkReceipt.self)
///     …
/// }
/// ```
public struct Request: Sendable {
    public let method: HTTPMethod
    /// The percent-decoded path, without the query string.
    public let path: String
    /// Percent-decoded query arguments; when a name repeats, the last value wins.
    public let query: [String: String]
    public let headers: HTTPHeaders
    /// Cookies from the `Cookie` header(s); when a name repeats, the first wins.
    public let cookies: [String: String]
    /// The body bytes; empty when the route streams its body to `bodyFile`.
    public let body: Data
    /// The IP address of the connection's other end as text, e.g. `127.0.0.1` or `::1`.
    public let remoteAddress: String
    /// The client's IP address: `remoteAddress`, or what a trusted proxy reports in
    /// `X-Forwarded-For` (see `HTTPServer.Configuration.trustedProxies`).
    public let clientAddress: String
    /// Values of the `{name}` segments of the matched route pattern.
    public internal(set) var pathParameters: [String: String]
    /// The temporary file holding the body, for routes with `RouteOptions.streamsBodyToFile`
    /// (nil otherwise). The server deletes it once the handler returns; move it away to keep it.
    public let bodyFile: URL?
    /// How deeply `decode(_:)` lets JSON nest.
    public let maxJSONDepth: Int

    /// Builds a request, e.g. to drive a `Router` in-process in tests.
    public init(
        method: HTTPMethod, path: String, query: [String: String] = [:], headers: HTTPHeaders = .init(),
        body: Data = Data(), bodyFile: URL? = nil, remoteAddress: String = "127.0.0.1", trustedProxies: Set<String> = [],
        maxJSONDepth: Int = 64
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.cookies = Self.parseCookies(headers.values("Cookie"))
        self.body = body
        self.bodyFile = bodyFile
        self.remoteAddress = remoteAddress
        clientAddress = ClientAddress.resolve(
            peer: remoteAddress, forwardedFor: headers.values("X-Forwarded-For"), trustedProxies: trustedProxies)
        self.pathParameters = [:]
        self.maxJSONDepth = maxJSONDepth
    }

    /// The path parameter `name`.
    /// - Throws: `HTTPFailure.invalidField` when the route has no such parameter.
    public func parameter(_ name: String) throws -> String {
        guard let value = pathParameters[name] else {
            throw HTTPFailure.invalidField(name, message: "Missing path parameter \(name).")
        }
        return value
    }

    /// Splits `name=value; name2="value 2"` pairs; malformed pairs are skipped.
    static func parseCookies(_ headerValues: [String]) -> [String: String] {
        var cookies: [String: String] = [:]
        for headerValue in headerValues {
            for pair in headerValue.split(separator: ";") {
                guard let equals = pair.firstIndex(of: "=") else { continue }
                let name = pair[..<equals].trimmingCharacters(in: .whitespaces)
                var value = pair[pair.index(after: equals)...].trimmingCharacters(in: .whitespaces)
                if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                    value = String(value.dropFirst().dropLast())
                }
                if !name.isEmpty, cookies[name] == nil { cookies[name] = value }
            }
        }
        return cookies
    }
}
