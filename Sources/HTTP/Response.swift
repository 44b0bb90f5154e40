public import Foundation

/// What a handler answers: status, headers and a body of bytes, a file or a stream.
///
/// ```swift
/// router.add(.GET, "/v1/health") { _ in try .json(["status": "ok"]) }
/// router.add(.GET, "/login") { _ in .redirect(to: "/admin") }
/// ```
/// `Content-Length` is computed by the server; do not set it.
public struct Response: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: Body

    public enum Body: Sendable {
        case bytes(Data)
        /// The file's bytes, or only `range` of them (the handler sets `206` and `Content-Range`).
        case file(URL, range: Range<Int64>?)
        /// Bytes produced over time, e.g. Server-Sent Events; sent with chunked encoding.
        case stream(any ResponseStream)
    }

    public init(status: Int = 200, headers: HTTPHeaders = .init(), body: Body = .bytes(Data())) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    static let jsonContentType = "application/json; charset=utf-8"

    /// The default encoder: sorted keys (stable output) and RFC 3339 dates.
    public static func defaultJSONEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }

    /// `value` as JSON.
    /// - Throws: the encoder's error for a value it cannot encode (answered as a logged, generic 500).
    public static func json<T: Encodable>(_ value: T, status: Int = 200, encoder: JSONEncoder = defaultJSONEncoder()) throws -> Response {
        let data = try encoder.encode(value)
        return Response(status: status, headers: ["Content-Type": jsonContentType], body: .bytes(data))
    }

    public static func html(_ text: String, status: Int = 200) -> Response {
        Response(status: status, headers: ["Content-Type": "text/html; charset=utf-8"], body: .bytes(Data(text.utf8)))
    }

    public static func text(_ text: String, status: Int = 200) -> Response {
        Response(status: status, headers: ["Content-Type": "text/plain; charset=utf-8"], body: .bytes(Data(text.utf8)))
    }

    /// A redirect, `303 See Other` by default (the answer to a form POST).
    public static func redirect(to location: String, status: Int = 303) -> Response {
        Response(status: status, headers: ["Location": location])
    }
}
