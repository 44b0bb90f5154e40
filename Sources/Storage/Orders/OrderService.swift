import Cryptography
import Foundation
import Postgres
import SyncEngine
import SyncProtocol

/// The answer to `POST /v1/orders`: the response as first sent, and whether this is a replay.
public struct OrderReceipt: Sendable {
    /// 201 for a created order.
    public let status: Int
    /// The JSON body, byte for byte what the first request was answered.
    public let body: Data
    /// True when an earlier request with the same key and body already created the order.
    public let replayed: Bool
}

/// Orders as PROTOCOL.md "Orders" defines them, for the device API and the back-office alike:
/// creation under an `Idempotency-Key`, confirmation and rejection by the office.
///
/// Every change goes through ``ServerChangeService``, so an order is an `orders` record that
/// devices pull, each status change is one applied change with a new `serverSeq`, and the
/// `order.*` events reach the live feeds.
///
/// ```swift
/// let orders = OrderService(store: syncStore, changes: serverChanges)
/// let receipt = try orders.submit(request, idempotencyKey: "k-1", by: ana)   // 201, replayed: false
/// let order = try orders.confirm("ord-7", by: dispatcher)
/// ```
/// Refusals throw ``SyncError`` (its code maps to the HTTP status).
public struct OrderService: Sendable {
    /// The endpoint idempotency keys of order creation belong to.
    static let endpoint = "POST /v1/orders"

    let store: PostgresSyncStore
    let changes: ServerChangeService

    public init(store: PostgresSyncStore, changes: ServerChangeService) {
        self.store = store
        self.changes = changes
    }

    /// Creates the order, or answers the stored response of an earlier request with the same
    /// key (keys are scoped to the user).
    ///
    /// The key is claimed, the order created and the answer stored in one transaction, so a
    /// key has an answer exactly when its order exists.
    /// - Throws: `REQUEST_IN_PROGRESS` while another request with the key runs,
    ///   `IDEMPOTENCY_KEY_REUSED` when the key was used with another body, and the creation
    ///   codes of ``ServerChangeService/createOrder(_:by:in:)`` (`VALIDATION_FAILED`, `RECORD_EXISTS`…).
    public func submit(_ request: OrderRequest, idempotencyKey: String, by principal: Principal) throws -> OrderReceipt {
        let scope = IdempotencyScope(userId: principal.userId, endpoint: Self.endpoint, key: idempotencyKey)
        let fingerprint = try Self.fingerprint(of: request)
        return try store.transaction { connection, transaction in
            let (claimed, earlier) = try IdempotencyKeys.claim(scope, on: connection)
            guard claimed else {
                throw SyncError(.requestInProgress, "a request with this Idempotency-Key is still being processed; retry shortly")
            }
            if let stored = earlier {
                guard stored.fingerprint == fingerprint else {
                    throw SyncError(.idempotencyKeyReused, "this Idempotency-Key was used with a different request body")
                }
                return OrderReceipt(status: stored.status, body: stored.body, replayed: true)
            }
            let order = try Order(record: changes.createOrder(request, by: principal, in: transaction))
            let answer = StoredAnswer(fingerprint: fingerprint, status: 201, body: try Self.encoder.encode(order))
            try IdempotencyKeys.store(answer, for: scope, on: connection)
            return OrderReceipt(status: answer.status, body: answer.body, replayed: false)
        }
    }

    /// Confirms a `SUBMITTED` order.
    /// - Throws: `FORBIDDEN` unless dispatcher or admin, `NOT_FOUND`, `ORDER_NOT_SUBMITTED`.
    public func confirm(_ orderId: String, by principal: Principal) throws -> Order {
        try Order(record: changes.confirmOrder(orderId, by: principal))
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

    /// The encoding of the device API's responses: sorted keys, unescaped slashes.
    private static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}

extension Order {
    /// The order an `orders` record holds.
    /// - Throws: `INTERNAL_ERROR` when the stored payload lacks an order's fields.
    init(record: StoredRecord) throws {
        let payload = record.payload
        guard let customerId = payload["customerId"]?.stringValue, let lines = payload["lines"],
            let status = payload["status"]?.stringValue.flatMap(OrderStatus.init(rawValue:))
        else { throw SyncError(.internalError, "record orders/\(record.recordId) is not a well-formed order") }
        self.init(
            orderId: record.recordId, customerId: customerId, lines: try lines.decode(as: [OrderLine].self),
            note: payload["note"]?.stringValue, status: status, rejectionReason: payload["rejectionReason"]?.stringValue,
            serverSeq: record.serverSeq, createdAt: record.createdAt)
    }
}
