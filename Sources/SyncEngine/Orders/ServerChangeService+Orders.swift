import Foundation
public import SyncProtocol

extension ServerChangeService {
    /// Creates an `orders` record from `POST /v1/orders` (status `SUBMITTED`, author's scope).
    ///
    /// - Throws: `VALIDATION_FAILED`, `RECORD_EXISTS`, or another rule 4 code.
    public func createOrder(_ request: OrderRequest, by principal: Principal, in transaction: (any SyncTransaction)? = nil) throws -> StoredRecord {
        guard DeviceIdentifier.isValid(request.orderId) else { throw SyncError.validation("orderId", "malformed orderId") }
        var fields: [String: FieldChange] = [
            "customerId": FieldChange(new: .string(request.customerId)), "lines": FieldChange(new: try JSONValue(encoding: request.lines)),
        ]
        if let note = request.note { fields["note"] = FieldChange(new: .string(note)) }
        return try changeOrder(request.orderId, type: .create, fields: fields, by: principal, in: transaction)
    }

    /// Confirms a `SUBMITTED` order.
    ///
    /// - Throws: `FORBIDDEN` unless dispatcher or admin, `NOT_FOUND`, `ORDER_NOT_SUBMITTED`.
    public func confirmOrder(_ orderId: String, by principal: Principal, in transaction: (any SyncTransaction)? = nil) throws -> StoredRecord {
        try decideOrder(orderId, status: .confirmed, reason: nil, by: principal, in: transaction)
    }

    /// Rejects a `SUBMITTED` order; `reason` fills `rejectionReason`.
    ///
    /// - Throws: `FORBIDDEN` unless dispatcher or admin, `NOT_FOUND`, `ORDER_NOT_SUBMITTED`.
    public func rejectOrder(
        _ orderId: String, reason: String, by principal: Principal, in transaction: (any SyncTransaction)? = nil
    ) throws -> StoredRecord {
        try decideOrder(orderId, status: .rejected, reason: reason, by: principal, in: transaction)
    }

    /// Confirms every `SUBMITTED` order of `selection` in one transaction (one statement locks
    /// them all, one writes them all); each is its own applied change with its own op id and
    /// live events, as when confirmed alone. Orders no longer `SUBMITTED` are left as they are
    /// and named in the answer.
    ///
    /// - Throws: `FORBIDDEN` unless dispatcher or admin; `NOT_FOUND` (with `details.orderIds`)
    ///   when some ids name no order, and then nothing is changed.
    public func confirmOrders(_ selection: OrderSelection, by principal: Principal) throws -> (confirmed: [StoredRecord], alreadyDecided: [String]) {
        guard principal.role.isOffice else { throw SyncError(.forbidden, "only dispatchers and admins decide orders") }
        let keys = selection.orderIds.map { RecordKey(collection: OrderEvents.collection, recordId: $0) }
        let fields = Self.decision(.confirmed, reason: nil)
        let writes = try transact(conflictIds: [], keys: keys, in: nil) { workspace in
            let missing = keys.filter { workspace.records[$0].map(\.isDeleted) ?? true }
            guard missing.isEmpty else {
                throw SyncError(
                    .notFound, "no order " + missing.map(\.recordId).joined(separator: ", "),
                    details: ["orderIds": .array(missing.map { .string($0.recordId) })])
            }
            for key in keys where Self.isSubmitted(workspace.records[key]) {
                try apply(key, type: .update, fields: fields, by: principal, to: &workspace)
            }
        }
        let confirmed = Dictionary(writes.records.map { ($0.recordId, $0) }, uniquingKeysWith: { first, _ in first })
        return (selection.orderIds.compactMap { confirmed[$0] }, selection.orderIds.filter { confirmed[$0] == nil })
    }

    private func decideOrder(
        _ orderId: String, status: OrderStatus, reason: String?, by principal: Principal, in transaction: (any SyncTransaction)?
    ) throws -> StoredRecord {
        guard principal.role.isOffice else { throw SyncError(.forbidden, "only dispatchers and admins decide orders") }
        return try changeOrder(orderId, type: .update, fields: Self.decision(status, reason: reason), by: principal, in: transaction)
    }

    /// The fields a decision changes: `status` from `SUBMITTED`, and the rejection's reason.
    private static func decision(_ status: OrderStatus, reason: String?) -> [String: FieldChange] {
        var fields = [OrderEvents.statusField: FieldChange(old: .string(OrderStatus.submitted.rawValue), new: .string(status.rawValue))]
        if let reason { fields["rejectionReason"] = FieldChange(new: .string(reason)) }
        return fields
    }

    /// Runs a server-made op on an order through the same validation and decision as a push.
    private func changeOrder(
        _ orderId: String, type: OpType, fields: [String: FieldChange], by principal: Principal, in transaction: (any SyncTransaction)?
    ) throws -> StoredRecord {
        let key = RecordKey(collection: OrderEvents.collection, recordId: orderId)
        let writes = try transact(conflictIds: [], keys: [key], in: transaction) { workspace in
            if type == .update { try Self.checkDecidable(workspace.records[key], orderId: orderId) }
            try apply(key, type: type, fields: fields, by: principal, to: &workspace)
        }
        guard let order = writes.records.first(where: { $0.key == key }) else {
            throw SyncError(.internalError, "order \(orderId) was not written")
        }
        return order
    }

    /// Validates and applies one op of `principal` on the order `key` in `workspace`.
    /// - Throws: the op's refusal as ``SyncError``.
    private func apply(_ key: RecordKey, type: OpType, fields: [String: FieldChange], by principal: Principal, to workspace: inout Workspace) throws {
        let now = clock()
        let opId = "server:" + makeId()
        let current = workspace.records[key]
        let op = PushOp(
            opId: opId, clientSeq: 0, collection: key.collection, recordId: key.recordId, type: type,
            baseServerSeq: current?.serverSeq, occurredAt: RFC3339.string(from: now), fields: fields)
        let pending = PendingOp(
            op: op, schemaVersion: schema.version, author: principal, receivedAt: now, fingerprint: "",
            result: OpResult(opId: opId, status: .deferred))
        let validator = OpValidator(schema: schema, configuration: SyncConfiguration())
        let result: OpResult
        do throws(OpFailure) {
            result = workspace.apply(try validator.validate(pending, current: current, conflicts: [:]))
        } catch {
            throw SyncError(error.code, error.message, details: error.details)
        }
        guard result.status == .applied else {
            throw SyncError(result.code ?? .internalError, result.message ?? "the order was not changed", details: result.details)
        }
    }

    private static func isSubmitted(_ order: StoredRecord?) -> Bool {
        order?.payload[OrderEvents.statusField]?.stringValue == OrderStatus.submitted.rawValue
    }

    private static func checkDecidable(_ order: StoredRecord?, orderId: String) throws(SyncError) {
        guard let order, !order.isDeleted else { throw SyncError(.notFound, "no order \(orderId)") }
        guard isSubmitted(order) else {
            throw SyncError(.orderNotSubmitted, "order \(orderId) is not SUBMITTED")
        }
    }
}
