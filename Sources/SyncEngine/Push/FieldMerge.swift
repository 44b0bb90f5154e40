import SyncProtocol

/// Rule 8 for one update: which fields overlap and who wins each.
///
/// A field overlaps when `fieldMeta[f].seq > baseServerSeq`, the change that set it came from
/// another device, and the server value differs from the client's `new`. Non-overlapping
/// fields merge. An overlapping field with a precedence table goes to the higher value; any
/// other goes to the server. (Rule 8.3's tie on equal sequence numbers cannot arise here:
/// every change has its own number, and equal precedence ranks mean equal values.)
struct FieldMerge {
    /// Values to write: merged fields and fields won by the client.
    var merged: [String: JSONValue] = [:]
    /// Every overlapping field, with its winner.
    var conflicts: [FieldConflict] = []

    init(op: ValidatedOp, current: StoredRecord) {
        let base = op.op.baseServerSeq ?? 0
        for (name, change) in op.fields.sorted(by: { $0.key < $1.key }) {
            let serverValue = current.payload[name] ?? .null
            guard let meta = current.fieldMeta[name], meta.seq > base, meta.deviceId != op.author.deviceId, serverValue != change.new
            else {
                merged[name] = change.new
                continue
            }
            var clientWins = false
            if let spec = op.collection.fields[name], spec.precedence != nil {
                clientWins = spec.precedenceRank(of: change.new) > spec.precedenceRank(of: serverValue)
            }
            conflicts.append(
                FieldConflict(
                    field: name, clientOld: change.old, clientNew: change.new, serverCurrent: serverValue, serverSeq: meta.seq,
                    winner: clientWins ? .client : .server))
            if clientWins { merged[name] = change.new }
        }
    }

    /// Overlapping fields the server kept.
    var serverKept: [FieldConflict] { conflicts.filter { $0.winner == .server } }

    /// Whether a human should look: the server kept a field no precedence table decided.
    ///
    /// Precedence-decided fields need no review, and opening entries for them would make the
    /// record's final state (its conflict flag) depend on arrival order.
    func needsReview(_ collection: CollectionSchema) -> Bool {
        serverKept.contains { collection.fields[$0.field]?.precedence == nil }
    }
}

/// The transition rule of rule 7: a changed value must be an allowed transition from the server's.
enum TransitionRule {
    /// A value `values` would set that is no allowed transition from the record's current one.
    struct Violation {
        let field: String
        let from: String
        let to: JSONValue

        var message: String { "\(field) may not change from \(from) to \(to)" }
        var details: [String: JSONValue] { ["field": .string(field), "from": .string(from), "to": to] }
    }

    static func check(_ op: ValidatedOp, current: StoredRecord) throws(OpFailure) {
        if let violation = violation(op.fields.mapValues(\.new), collection: op.collection, current: current) {
            throw .conflict(.transitionNotAllowed, violation.message, details: violation.details)
        }
    }

    /// The first (by field name) value of `values` that the collection's transitions forbid.
    static func violation(_ values: [String: JSONValue], collection: CollectionSchema, current: StoredRecord) -> Violation? {
        for (name, value) in values.sorted(by: { $0.key < $1.key }) {
            guard let transitions = collection.fields[name]?.transitions, let from = current.payload[name]?.stringValue,
                value != .string(from)
            else { continue }
            if let to = value.stringValue, transitions[from]?.contains(to) == true { continue }
            return Violation(field: name, from: from, to: value)
        }
        return nil
    }
}
