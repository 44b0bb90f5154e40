import Foundation
import SyncProtocol

/// An op that passed rules 4 and 5: its fields are migrated to the current schema and valid.
struct ValidatedOp {
    let pending: PendingOp
    let collection: CollectionSchema
    let fields: [String: FieldChange]
    /// The open conflict entry this op settles when it applies.
    let resolving: StoredConflict?

    var op: PushOp { pending.op }
    var author: Principal { pending.author }
    var key: RecordKey { RecordKey(collection: op.collection, recordId: op.recordId) }
}

/// Rule 4 (validation, in PROTOCOL order) and rule 5 (migration) for one op.
///
/// Order of checks: `UNKNOWN_COLLECTION`; then the migration to the current schema
/// (`SCHEMA_UNSUPPORTED` without a path) because every later check reads the current schema's
/// field names; then `UNKNOWN_FIELD`, `VALIDATION_FAILED`, `FIELD_READ_ONLY`, `OUT_OF_SCOPE`,
/// `OCCURRED_AT_OUT_OF_RANGE`. The `occurredAt` window is measured from the op's first arrival,
/// so an op that waited for an attachment is not rejected for having waited.
struct OpValidator {
    let schema: Schema
    let configuration: SyncConfiguration

    func validate(
        _ pending: PendingOp, current: StoredRecord?, conflicts: [String: StoredConflict]
    ) throws(OpFailure) -> ValidatedOp {
        let op = pending.op
        guard let collection = schema.collections[op.collection] else {
            throw .rejected(.unknownCollection, "unknown collection \(op.collection)")
        }
        guard let fields = schema.migrate(op.fields ?? [:], type: op.type, collection: op.collection, from: pending.schemaVersion) else {
            throw .rejected(.schemaUnsupported, "no migration from schema version \(pending.schemaVersion) for \(op.collection)")
        }
        if let unknown = fields.keys.sorted().first(where: { collection.fields[$0] == nil }) {
            throw .rejected(.unknownField, "\(op.collection) has no field \(unknown)", field: unknown)
        }
        let occurredAt = try checkShape(op, fields: fields, collection: collection)
        let resolving = try checkResolves(op, author: pending.author, conflicts: conflicts)
        try checkWriteRoles(op, fields: fields, collection: collection, role: pending.author.role)
        try checkScope(op, fields: fields, collection: collection, author: pending.author, current: current)
        try checkOccurredAt(occurredAt, receivedAt: pending.receivedAt)
        return ValidatedOp(pending: pending, collection: collection, fields: fields, resolving: resolving)
    }

    /// `VALIDATION_FAILED`: op shape, `occurredAt` syntax, value types, required fields on create.
    private func checkShape(_ op: PushOp, fields: [String: FieldChange], collection: CollectionSchema) throws(OpFailure) -> Date {
        if op.type == .delete, !fields.isEmpty { throw .rejected(.validationFailed, "a delete carries no fields", field: "fields") }
        if op.type != .delete, fields.isEmpty { throw .rejected(.validationFailed, "no fields to write", field: "fields") }
        guard let occurredAt = RFC3339.date(from: op.occurredAt) else {
            throw .rejected(.validationFailed, "occurredAt is not an RFC 3339 timestamp", field: "occurredAt")
        }
        // Every name is declared: unknown fields were rejected before.
        for (name, change) in fields.sorted(by: { $0.key < $1.key }) {
            guard let spec = collection.fields[name] else { continue }
            if let problem = spec.problem(with: change.new, path: name, allowNull: !spec.required) {
                throw OpFailure(
                    code: .validationFailed, message: "\(problem.path) \(problem.reason)",
                    details: ["field": .string(name), "path": .string(problem.path)])
            }
        }
        if op.type == .create {
            let missing = collection.requiredFields.first { name in
                collection.defaults[name] == nil && (fields[name]?.new ?? .null).isNull
            }
            if let missing {
                throw .rejected(.validationFailed, "\(missing) is required", field: missing)
            }
        }
        return occurredAt
    }

    /// `VALIDATION_FAILED` on `resolves` when it names no conflict of this record the author may settle.
    private func checkResolves(_ op: PushOp, author: Principal, conflicts: [String: StoredConflict]) throws(OpFailure) -> StoredConflict? {
        guard let id = op.resolves else { return nil }
        guard let conflict = conflicts[id], conflict.entry.collection == op.collection, conflict.entry.recordId == op.recordId,
            conflict.entry.authorId == author.userId || author.role.isOffice
        else { throw .rejected(.validationFailed, "resolves names no conflict of this record", field: "resolves") }
        return conflict.entry.state == .open ? conflict : nil
    }

    /// `FIELD_READ_ONLY`: the role may not write the collection, or a server-owned field.
    ///
    /// A create may repeat a server-owned field's default (an order sent as `SUBMITTED`).
    private func checkWriteRoles(_ op: PushOp, fields: [String: FieldChange], collection: CollectionSchema, role: Role) throws(OpFailure) {
        if op.type == .delete, !collection.canWrite(nil, role: role) {
            throw OpFailure(
                code: .fieldReadOnly, message: "\(role.rawValue) may not write \(op.collection)",
                details: ["collection": .string(op.collection)])
        }
        for (name, change) in fields.sorted(by: { $0.key < $1.key }) where !collection.canWrite(name, role: role) {
            let repeatsDefault = op.type == .create && collection.canWrite(nil, role: role) && collection.fields[name]?.defaultValue == change.new
            if !repeatsDefault { throw .rejected(.fieldReadOnly, "\(role.rawValue) may not write \(op.collection).\(name)", field: name) }
        }
    }

    /// `OUT_OF_SCOPE`: the record, before and after the op, must be visible to the author,
    /// and the `assigneeId`/`teamId` values it writes must lie inside the author's scope.
    private func checkScope(
        _ op: PushOp, fields: [String: FieldChange], collection: CollectionSchema, author: Principal, current: StoredRecord?
    ) throws(OpFailure) {
        guard author.visibleScopeKeys != nil else { return }
        let after: [String: JSONValue]? =
            switch op.type {
            case .create: collection.createdPayload(from: fields, author: author)
            case .update: current.map { $0.payload.overlaid(with: fields) }
            case .delete: nil
            }
        let failure = ScopeCheck.problem(
            author: author, collection: op.collection, before: current?.scopeKeys, after: after, written: fields.mapValues(\.new))
        if let failure { throw .rejected(.outOfScope, "\(op.collection)/\(op.recordId) \(failure.message)", field: failure.field) }
    }

    /// `OCCURRED_AT_OUT_OF_RANGE`: more than the skew ahead of, or the window behind, the arrival time.
    private func checkOccurredAt(_ occurredAt: Date, receivedAt: Date) throws(OpFailure) {
        let ahead = occurredAt.timeIntervalSince(receivedAt)
        if ahead > configuration.occurredAtFutureSkew || -ahead > configuration.occurredAtWindow {
            throw .rejected(.occurredAtOutOfRange, "occurredAt is outside the accepted window")
        }
    }
}
