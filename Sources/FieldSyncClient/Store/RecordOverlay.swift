import SyncProtocol

/// The pure rules for what a device shows: a record's last known server fields with its
/// unacknowledged ops applied on top, in clientSeq order.
///
/// A nil record means "not visible": never created, deleted, or out of scope.
enum RecordOverlay {
    typealias Fields = [String: JSONValue]

    /// `server` with `pending` applied, oldest first.
    static func view(server: Fields?, pending: [PushOp]) -> Fields? {
        pending.reduce(server) { fields, op in apply(op, to: fields) }
    }

    /// One op over a record: a create makes it (keeping fields the server already has), an
    /// update changes the fields it names on a record that exists, a delete removes it.
    static func apply(_ op: PushOp, to fields: Fields?) -> Fields? {
        switch op.type {
        case .create: merge(op.fields ?? [:], into: fields ?? [:])
        case .update: fields.map { merge(op.fields ?? [:], into: $0) }
        case .delete: nil
        }
    }

    /// `changes`' new values over `fields`; only the names in `only` when given.
    static func merge(_ changes: [String: FieldChange], into fields: Fields, only: Set<String>? = nil) -> Fields {
        var merged = fields
        for (name, change) in changes where only?.contains(name) ?? true {
            merged[name] = change.new
        }
        return merged
    }
}
