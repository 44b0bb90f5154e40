public import SyncProtocol

/// A failure of a whole request to the engine, carrying its protocol error code.
///
/// Controllers answer it as `code.httpStatus` with ``envelope`` as the body.
public struct SyncError: Error, Hashable, Sendable, CustomStringConvertible {
    public var code: ErrorCode
    public var message: String
    public var details: [String: JSONValue]?

    public init(_ code: ErrorCode, _ message: String, details: [String: JSONValue]? = nil) {
        self.code = code
        self.message = message
        self.details = details
    }

    /// `VALIDATION_FAILED` naming the offending request member in `details.field`.
    public static func validation(_ field: String, _ message: String) -> SyncError {
        SyncError(.validationFailed, message, details: ["field": .string(field)])
    }

    public var envelope: ErrorEnvelope { ErrorEnvelope(code: code, message: message, details: details) }

    public var description: String { "\(code): \(message)" }
}
