/// One order line: `{"sku": "…", "qty": 2}`.
public struct OrderLine: Codable, Sendable, Hashable {
    public var sku: String
    public var qty: Int64

    public init(sku: String, qty: Int64) {
        self.sku = sku
        self.qty = qty
    }
}

/// The status of an order; only dispatchers and admins move it past `SUBMITTED`.
public enum OrderStatus: String, Codable, Sendable, Hashable {
    case submitted = "SUBMITTED"
    case confirmed = "CONFIRMED"
    case rejected = "REJECTED"
}

/// `POST /v1/orders` request (with the `Idempotency-Key` header).
public struct OrderRequest: Codable, Sendable, Hashable {
    public var orderId: String
    public var customerId: String
    public var lines: [OrderLine]
    public var note: String?

    public init(orderId: String, customerId: String, lines: [OrderLine], note: String? = nil) {
        self.orderId = orderId
        self.customerId = customerId
        self.lines = lines
        self.note = note
    }
}

/// `POST /v1/orders/{orderId}/reject` request.
public struct RejectOrderRequest: Codable, Sendable, Hashable {
    public var reason: String

    public init(reason: String) { self.reason = reason }
}

/// An order as the order endpoints answer it.
public struct Order: Codable, Sendable, Hashable {
    public var orderId: String
    public var customerId: String
    public var lines: [OrderLine]
    public var note: String?
    public var status: OrderStatus
    public var rejectionReason: String?
    public var serverSeq: Int64
    /// RFC 3339.
    public var createdAt: String

    public init(
        orderId: String, customerId: String, lines: [OrderLine], note: String? = nil, status: OrderStatus,
        rejectionReason: String? = nil, serverSeq: Int64, createdAt: String
    ) {
        self.orderId = orderId
        self.customerId = customerId
        self.lines = lines
        self.note = note
        self.status = status
        self.rejectionReason = rejectionReason
        self.serverSeq = serverSeq
        self.createdAt = createdAt
    }
}
