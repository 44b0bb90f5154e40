public import Foundation
public import SyncProtocol

/// The back-office's writes to the work sent to the field: creating and editing assignments,
/// and moving an assignment, job or visit to another field user or team.
///
/// Each save is one push op of the office user's back-office device (`web:<userId>`), numbered
/// by the server and run by the same ``PushProcessor`` as a device's push: validation, scope
/// rules, field conflicts against `baseServerSeq`, the op log, live events and the scope
/// removals the previous assignee's devices pull all behave as for a dispatcher's device.
///
/// ```swift
/// let desk = AssignmentDesk(pushes: pushes)
/// let saved = try desk.save(AssignmentEdit(key: key, baseServerSeq: 812, fields: ["assigneeId": .string("u-7")]), by: dora)
/// ```
public struct AssignmentDesk: Sendable {
    /// The collections whose records the office assigns.
    public static let collections = ["assignments", "jobs", "visits"]
    /// The one collection the office also creates and edits in full.
    public static let assignments = "assignments"

    let pushes: PushService
    private let clock: @Sendable () -> Date
    private let makeId: @Sendable () -> String

    public init(
        pushes: PushService, clock: @escaping @Sendable () -> Date = { Date() },
        makeId: @escaping @Sendable () -> String = { UUID().uuidString.lowercased() }
    ) {
        self.pushes = pushes
        self.clock = clock
        self.makeId = makeId
    }

    /// A new assignment's record id.
    public func newAssignmentId() -> String {
        "asg-" + makeId()
    }

    /// What a save came to.
    public enum Outcome: Sendable, Equatable {
        /// Every value already was what the form holds: nothing was written.
        case unchanged
        /// The op's result, exactly as a device's push would get it.
        case pushed(OpResult)
    }

    /// Writes `edit` as `principal` in one transaction.
    ///
    /// An edit of an existing record sends only the fields whose value differs from the stored
    /// one, each with the stored value as `old`; a create sends every field given.
    /// - Throws: ``SyncError`` when the transaction fails (nothing is written).
    public func save(_ edit: AssignmentEdit, by principal: Principal) throws -> Outcome {
        let opId = "office-op:" + makeId()
        let occurredAt = RFC3339.string(from: clock())
        do {
            let result = try pushes.store.transaction { tx in
                try pushes.runServerNumbered(
                    opId: opId, key: edit.key, schemaVersion: pushes.processor.schema.version, by: principal, in: tx
                ) { current, clientSeq in
                    guard let op = edit.op(opId: opId, clientSeq: clientSeq, occurredAt: occurredAt, current: current) else { throw Unchanged() }
                    return op
                }
            }
            return .pushed(result)
        } catch is Unchanged {
            return .unchanged
        }
    }

    /// Rolls the transaction back when there is nothing to write.
    private struct Unchanged: Error {}
}

/// A create (`baseServerSeq` nil) or an edit of one assigned record, as the office's form posts it.
public struct AssignmentEdit: Sendable, Hashable {
    public var key: RecordKey
    /// The record's `serverSeq` when the form was loaded; nil creates the record.
    public var baseServerSeq: Int64?
    /// The fields' values in the form; `.null` clears an optional field.
    public var fields: [String: JSONValue]

    public init(key: RecordKey, baseServerSeq: Int64?, fields: [String: JSONValue]) {
        self.key = key
        self.baseServerSeq = baseServerSeq
        self.fields = fields
    }

    /// The push op, or nil for an edit that changes nothing.
    func op(opId: String, clientSeq: Int64, occurredAt: String, current: StoredRecord?) -> PushOp? {
        guard let baseServerSeq else {
            let changes = fields.filter { !$0.value.isNull }.mapValues { FieldChange(old: nil, new: $0) }
            return PushOp(
                opId: opId, clientSeq: clientSeq, collection: key.collection, recordId: key.recordId, type: .create, occurredAt: occurredAt,
                fields: changes)
        }
        let stored = current?.payload ?? [:]
        var changes: [String: FieldChange] = [:]
        for (name, value) in fields where (stored[name] ?? .null) != value {
            changes[name] = FieldChange(old: stored[name], new: value)
        }
        // A record gone since the form was loaded still gets its op, so the answer says so.
        guard !changes.isEmpty || current == nil || current?.isDeleted == true else { return nil }
        return PushOp(
            opId: opId, clientSeq: clientSeq, collection: key.collection, recordId: key.recordId, type: .update,
            baseServerSeq: baseServerSeq, occurredAt: occurredAt, fields: changes)
    }
}
