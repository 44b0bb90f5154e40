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

    private func decideOrder(
        _ orderId: String, status: OrderStatus, reason: String?, by principal: Principal, in transaction: (any SyncTransaction)?
    ) throws -> StoredRecord {
        guard principal.role.isOffice else { throw SyncError(.forbidden, "only dispatchers and admins decide orders") }
        var fields = [OrderEvents.statusField: FieldChange(old: .string(OrderStatus.submitted.rawValue), new: .string(status.rawValue))]
        if let reason { fields["rejectionReason"] = FieldChange(new: .string(reason)) }
        return try changeOrder(orderId, type: .update, fields: fields, by: principal, in: transaction)
    }

    /// Runs a server-made op on an order through the same validation and decision as a push.
    private func changeOrder(
        _ orderId: String, type: OpType, fields: [String: FieldChange], by principal: Principal, in transaction: (any SyncTransaction)?
    ) throws -> StoredRecord {
        let key = RecordKey(collection: OrderEvents.collection, recordId: orderId)
        let now = clock()
        let opId = "server:" + makeId()
        let validator = OpValidator(schema: schema, configuration: SyncConfiguration())
        let writes = try transact(conflictIds: [], keys: [key], in: transaction) { workspace in
            let current = workspace.records[key]
            if type == .update { try Self.checkDecidable(current, orderId: orderId) }
            let op = PushOp(
                opId: opId, clientSeq: 0, collection: key.collection, recordId: orderId, type: type,
                baseServerSeq: current?.serverSeq, occurredAt: RFC3339.string(from: now), fields: fields)
            let pending = PendingOp(
                op: op, schemaVersion: schema.version, author: principal, receivedAt: now, fingerprint: "",
                result: OpResult(opId: opId, status: .deferred))
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
        guard let order = writes.records.first(where: { $0.key == key }) else {
            throw SyncError(.internalError, "order \(orderId) was not written")
        }
        return order
    }

    private static func checkDecidable(_ order: StoredRecord?, orderId: String) throws(SyncError) {
        guard let order, !order.isDeleted else { throw SyncError(.notFound, "no order \(orderId)") }
        guard order.payload[OrderEvents.statusField]?.stringValue == OrderStatus.submitted.rawValue else {
            throw SyncError(.orderNotSubmitted, "order \(orderId) is not SUBMITTED")
        }
    }
}
