/// A store gave up on a call because the database held it too long: a statement ran past its
/// time limit or waited too long for a lock. Nothing of the call was stored, and the same
/// call may succeed shortly, so the device API answers it 503 `SERVER_BUSY` with `Retry-After`.
public struct StoreBusy: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Reason: String, Sendable {
        case statementTimeout
        case lockTimeout
    }

    public let reason: Reason

    public init(_ reason: Reason) {
        self.reason = reason
    }

    public var description: String { "store busy: \(reason.rawValue)" }
}
