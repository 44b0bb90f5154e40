import SyncProtocol

/// An op outcome that applies nothing (rejected, or a conflict that changes no record).
struct OpFailure: Error {
    var status: OpStatus = .rejected
    var code: ErrorCode
    var message: String
    var details: [String: JSONValue]?
    var tombstoneSeq: Int64?

    static func rejected(_ code: ErrorCode, _ message: String, field: String? = nil) -> OpFailure {
        OpFailure(code: code, message: message, details: field.map { ["field": .string($0)] })
    }

    static func conflict(_ code: ErrorCode, _ message: String, details: [String: JSONValue]? = nil) -> OpFailure {
        OpFailure(status: .conflict, code: code, message: message, details: details)
    }

    func result(for op: PushOp) -> OpResult {
        OpResult(
            opId: op.opId, status: status, code: code, message: message, recordId: op.recordId, tombstoneSeq: tombstoneSeq,
            details: details)
    }
}

extension [String: JSONValue] {
    /// This payload with an op's new values laid over it; a `null` value removes the field.
    func overlaid(with fields: [String: FieldChange]) -> [String: JSONValue] {
        var payload = self
        for (name, change) in fields {
            payload[name] = change.new.isNull ? nil : change.new
        }
        return payload
    }
}

extension CollectionSchema {
    /// The payload a create produces: defaults, then the op's values, then the author's scope
    /// when the record carries neither `assigneeId` nor `teamId`.
    func createdPayload(from fields: [String: FieldChange], author: Principal) -> [String: JSONValue] {
        var payload = defaults.overlaid(with: fields)
        if payload[ScopeFields.assignee] == nil, payload[ScopeFields.team] == nil {
            payload.merge(author.defaultScopeFields) { own, _ in own }
        }
        return payload
    }
}
