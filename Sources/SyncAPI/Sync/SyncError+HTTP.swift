import HTTP
import SyncEngine
import SyncProtocol

extension HTTPError {
    /// A refused engine request as the protocol's error envelope and status; a request still
    /// in progress (a busy idempotency key) also says when to retry.
    init(_ error: SyncError) {
        self.init(
            status: error.code.httpStatus, code: error.code.rawValue, message: error.message,
            details: (error.details ?? [:]).mapValues(JSONDetail.init))
        if error.code == .requestInProgress { headers["Retry-After"] = "1" }
    }
}

extension JSONDetail {
    /// The same JSON, in the HTTP layer's detail type.
    init(_ value: JSONValue) {
        switch value {
        case .null: self = .null
        case .bool(let flag): self = .bool(flag)
        case .int(let number): self = .int(Int(number))
        case .double(let number): self = .double(number)
        case .string(let text): self = .string(text)
        case .array(let items): self = .array(items.map(JSONDetail.init))
        case .object(let members): self = .object(members.mapValues(JSONDetail.init))
        }
    }
}

/// Runs an engine call, answering a `SyncError` as its HTTP error.
func mappingSyncErrors<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as SyncError {
        throw HTTPError(error)
    }
}
