internal import Foundation

/// An error a handler throws to answer with the protocol's error envelope:
/// `{"error": {"code": "…", "message": "…", "details": {…}}}`.
///
/// ```swift
/// guard let order = try store.order(id) else {
///     throw HTTPError(status: 404, code: "ORDER_NOT_FOUND", message: "No such order.")
/// }
/// ```
/// `description` shows status and code only: messages and details may carry user data.
public struct HTTPError: Error, Sendable, CustomStringConvertible {
    public var status: Int
    public var code: String
    public var message: String
    public var details: [String: JSONDetail]
    /// Extra response headers, e.g. `Retry-After` or `Allow`.
    public var headers: HTTPHeaders

    public init(status: Int, code: String, message: String, details: [String: JSONDetail] = [:], headers: HTTPHeaders = .init()) {
        self.status = status
        self.code = code
        self.message = message
        self.details = details
        self.headers = headers
    }

    public var description: String { "HTTPError(\(status) \(code))" }

    /// The envelope as a JSON response carrying `status` and `headers`.
    public func response() -> Response {
        var response = Response(status: status, headers: headers, body: .bytes(envelopeJSON()))
        response.headers["Content-Type"] = Response.jsonContentType
        return response
    }

    private struct Envelope: Encodable {
        struct Body: Encodable {
            let code: String
            let message: String
            let details: [String: JSONDetail]
        }
        let error: Body
    }

    private func envelopeJSON() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let envelope = Envelope(error: .init(code: code, message: message, details: details))
        // Encoding strings, numbers and nested containers cannot fail; a fixed body is the
        // fallback only because `encode` is declared throwing.
        return (try? encoder.encode(envelope))
            ?? Data(#"{"error":{"code":"INTERNAL_ERROR","message":"Internal server error.","details":{}}}"#.utf8)
    }
}

// MARK: - Errors the HTTP layer itself produces

extension HTTPError {
    public static func notFound(message: String = "No resource matches this path.") -> HTTPError {
        HTTPError(status: 404, code: "NOT_FOUND", message: message)
    }

    /// 405 with the `Allow` header listing the methods the path does accept.
    public static func methodNotAllowed(allow: [HTTPMethod]) -> HTTPError {
        let names = allow.map(\.rawValue).joined(separator: ", ")
        return HTTPError(
            status: 405, code: "METHOD_NOT_ALLOWED", message: "This path does not accept this method.",
            details: ["allow": .array(allow.map { .string($0.rawValue) })], headers: ["Allow": names])
    }

    public static func payloadTooLarge(limit: Int) -> HTTPError {
        HTTPError(
            status: 413, code: "PAYLOAD_TOO_LARGE", message: "The request body is larger than \(limit) bytes.",
            details: ["limit": .int(limit)])
    }

    public static func headersTooLarge(limit: Int) -> HTTPError {
        HTTPError(
            status: 431, code: "HEADERS_TOO_LARGE", message: "The request headers are larger than \(limit) bytes.",
            details: ["limit": .int(limit)])
    }

    public static func malformedJSON(_ reason: String) -> HTTPError {
        HTTPError(status: 400, code: "MALFORMED_JSON", message: reason)
    }

    /// 400 `VALIDATION_FAILED`; `field` (a coding path such as `lines[0].qty`) goes to `details.field`.
    public static func validationFailed(field: String?, message: String) -> HTTPError {
        HTTPError(status: 400, code: "VALIDATION_FAILED", message: message, details: field.map { ["field": .string($0)] } ?? [:])
    }

    public static func unauthenticated(message: String = "Missing, invalid or revoked credentials.") -> HTTPError {
        HTTPError(status: 401, code: "UNAUTHENTICATED", message: message)
    }

    public static func forbidden(code: String = "FORBIDDEN", message: String = "You may not do this.") -> HTTPError {
        HTTPError(status: 403, code: code, message: message)
    }

    /// 503 with `Retry-After`, e.g. when the worker queue is full or the server is stopping.
    public static func serviceUnavailable(code: String, message: String, retryAfterSeconds: Int) -> HTTPError {
        HTTPError(status: 503, code: code, message: message, headers: ["Retry-After": String(retryAfterSeconds)])
    }

    public static func notImplemented(message: String = "This method is not supported.") -> HTTPError {
        HTTPError(status: 501, code: "NOT_IMPLEMENTED", message: message)
    }

    /// The generic 500: says nothing about what failed.
    public static func internalError() -> HTTPError {
        HTTPError(status: 500, code: "INTERNAL_ERROR", message: "Internal server error.")
    }
}
