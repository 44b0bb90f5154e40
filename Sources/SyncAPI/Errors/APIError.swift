import Foundation
public import HTTP
public import SyncProtocol

/// A refusal of the device API: a code of the `ErrorCode` catalogue with a message and
/// details, answered as PROTOCOL.md's error envelope with the code's status.
///
/// ```swift
/// throw APIError(.idempotencyKeyRequired, "POST /v1/orders needs an Idempotency-Key header")
/// throw APIError.validationFailed(field: "limit", "limit must be a positive integer")
/// ```
/// Domain errors (`SyncError`, attachment and login failures…) become `APIError`s in one place,
/// `APIError+Mapping.swift`. `description` shows status and code only: messages and details
/// may carry user data.
public struct APIError: HTTPResponseError, CustomStringConvertible {
    public var code: ErrorCode
    public var message: String
    public var details: [String: JSONValue]
    /// Extra response headers, e.g. `Retry-After` or `Allow`.
    public var headers: HTTPHeaders

    public init(_ code: ErrorCode, _ message: String, details: [String: JSONValue] = [:], headers: HTTPHeaders = .init()) {
        self.code = code
        self.message = message
        self.details = details
        self.headers = headers
    }

    /// The catalogue's status for the code.
    public var status: Int { code.httpStatus }

    public var description: String { "APIError(\(status) \(code))" }

    /// `{"error": {"code", "message", "details"}}` with `status` and `headers`.
    public func response() -> Response {
        let envelope: JSONValue = ["error": ["code": .string(code.rawValue), "message": .string(message), "details": .object(details)]]
        var response = Response(status: status, headers: headers, body: .bytes(envelope.canonicalData()))
        response.headers["Content-Type"] = "application/json; charset=utf-8"
        return response
    }

    /// 400 `VALIDATION_FAILED`; `field` (a coding path such as `lines[0].qty`) goes to `details.field`.
    public static func validationFailed(field: String?, _ message: String) -> APIError {
        APIError(.validationFailed, message, details: field.map { ["field": .string($0)] } ?? [:])
    }

    /// 403 `FORBIDDEN`.
    public static func forbidden(_ message: String) -> APIError {
        APIError(.forbidden, message)
    }

    /// 401 `UNAUTHENTICATED`.
    public static func unauthenticated() -> APIError {
        APIError(.unauthenticated, "Missing, invalid or revoked credentials.")
    }

    /// 500 `INTERNAL_ERROR`, saying nothing about what failed.
    public static func internalError() -> APIError {
        APIError(.internalError, "Internal server error.")
    }
}
