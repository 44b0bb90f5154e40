import Cryptography
import Foundation
public import SyncProtocol

/// The outcome of submitting an order: the response as first sent, and whether this is a replay.
public struct OrderReceipt: Sendable {
    public let response: RecordedResponse
    /// True when an earlier request with the same key and body already created the order.
    public let replayed: Bool
}

/// Orders as PROTOCOL.md "Orders" defines them, for the device API and the back-office alike:
/// creation under an idempotency key, confirmation and rejection by the office.
///
/// Every change goes through ``ServerChangeService``, so an order is an `orders` record that
/// devices pull, each status change is one applied change with a new `serverSeq`, and the
/// `order.*` events reach the live feeds.
///
/// ```swift
/// let orders = OrderService(store: syncStore, changes: serverChanges)
/// let receipt = try orders.submit(request, under: key, by: ana) { order in RecordedResponse(status: 201, body: encoded(order)) }
/// let order = try orders.confirm("ord-7", by: dispatcher)
/// ```
/// Refusals throw ``SyncError``.
public struct OrderService: Sendable {
    let store: any IdempotentSyncStore
    let changes: ServerChangeService

    public init(store: any IdempotentSyncStore, changes: ServerChangeService) {
        self.store = store
        self.changes = changes
    }

    /// Creates the order and answers `respond(order)`, or answers the stored response of an
    /// earlier request with the same key (keys are scoped to the user and the endpoint).
    ///
    /// The key is claimed, the order created and the response stored in one transaction, so a
    /// key has an answer exactly when its order exists.
    /// - Throws: `REQUEST_IN_PROGRESS` while another request with the key runs,
    ///   `IDEMPOTENCY_KEY_REUSED` when the key was used with another body, and the creation
    ///   codes of ``ServerChangeService/createOrder(_:by:in:)`` (`VALIDATION_FAILED`, `RECORD_EXISTS`…).
    public func submit(
        _ request: OrderRequest, under key: IdempotencyKey, by principal: Principal, respond: (Order) throws -> RecordedResponse
    ) throws -> OrderReceipt {
        let scope = IdempotencyScope(userId: principal.userId, key: key)
        let fingerprint = try Self.fingerprint(of: request)
        return try store.transaction { ledger, transaction in
            let (claimed, earlier) = try ledger.claim(scope)
            guard claimed else {
                throw SyncError(.requestInProgress, "a request with this Idempotency-Key is still being processed; retry shortly")
            }
            if let stored = earlier {
                guard stored.fingerprint == fingerprint else {
                    throw SyncError(.idempotencyKeyReused, "this Idempotency-Key was used with a different request body")
                }
                return OrderReceipt(response: stored.response, replayed: true)
            }
            let order = try Order(record: changes.createOrder(request, by: principal, in: transaction))
            let answer = StoredAnswer(fingerprint: fingerprint, response: try respond(order))
            try ledger.store(answer, for: scope)
            return OrderReceipt(response: answer.response, replayed: false)
        }
    }

    /// Confirms a `SUBMITTED` order.
    /// - Throws: `FORBIDDEN` unless dispatcher or admin, `NOT_FOUND`, `ORDER_NOT_SUBMITTED`.
    public func confirm(_ orderId: String, by principal: Principal) throws -> Order {
        try Order(record: changes.confirmOrder(orderId, by: principal))
    }

    /// Confirms the `SUBMITTED` orders of `selection` in one transaction, leaving (and naming)
    /// those someone decided already.
    /// - Throws: `FORBIDDEN` unless dispatcher or admin; `NOT_FOUND` when an id names no order,
    ///   and then nothing is changed.
    public func confirm(_ selection: OrderSelection, by principal: Principal) throws -> OrderBatchDecision {
        let (confirmed, alreadyDecided) = try changes.confirmOrders(selection, by: principal)
        return OrderBatchDecision(confirmed: try confirmed.map(Order.init(record:)), alreadyDecided: alreadyDecided)
    }

    /// Rejects a `SUBMITTED` order; `reason` becomes its `rejectionReason`.
    /// - Throws: `FORBIDDEN` unless dispatcher or admin, `NOT_FOUND`, `ORDER_NOT_SUBMITTED`.
    public func reject(_ orderId: String, reason: String, by principal: Principal) throws -> Order {
        try Order(record: changes.rejectOrder(orderId, reason: reason, by: principal))
    }

    /// SHA-256 (hex) of the request's canonical JSON: key order, spacing and an absent versus
    /// null `note` do not change it; any value does.
    static func fingerprint(of request: OrderRequest) throws -> String {
        SHA256.hash(try JSONValue(encoding: request).canonicalData()).hexString
    }
}

extension Order {
    /// The order an `orders` record holds.
    /// - Throws: `INTERNAL_ERROR` when the stored payload lacks an order's fields.
    public init(record: StoredRecord) throws {
        let payload = record.payload
        guard let customerId = payload["customerId"]?.stringValue, let lines = payload["lines"],
            let status = payload[OrderEvents.statusField]?.stringValue.flatMap(OrderStatus.init(rawValue:))
        else { throw SyncError(.internalError, "record orders/\(record.recordId) is not a well-formed order") }
        self.init(
            orderId: record.recordId, customerId: customerId, lines: try lines.decode(as: [OrderLine].self),
            note: payload["note"]?.stringValue, status: status, rejectionReason: payload["rejectionReason"]?.stringValue,
            serverSeq: record.serverSeq, createdAt: record.createdAt)
    }
}
