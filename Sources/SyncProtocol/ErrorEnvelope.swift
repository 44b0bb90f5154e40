/// The body of every non-2xx response: `{"error": {"code", "message", "details"}}`.
///
/// ```swift
/// ErrorEnvelope(code: .validationFailed, message: "too many ops", details: ["field": "ops"])
/// ```
public struct ErrorEnvelope: Codable, Sendable, Hashable {
    /// The error itself.
    public struct Body: Codable, Sendable, Hashable {
        public var code: ErrorCode
        public var message: String
        public var details: [String: JSONValue]?

        public init(code: ErrorCode, message: String, details: [String: JSONValue]? = nil) {
            self.code = code
            self.message = message
            self.details = details
        }
    }

    public var error: Body

    public init(code: ErrorCode, message: String, details: [String: JSONValue]? = nil) {
        error = Body(code: code, message: message, details: details)
    }
}
