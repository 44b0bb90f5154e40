import Foundation
import HTTP
public import SyncEngine
import SyncProtocol

/// `POST /v1/orders`, `POST /v1/orders/{orderId}/confirm` and `…/reject` (PROTOCOL.md, Orders).
///
/// The back-office confirms and rejects through the same ``OrderService``. Every call passes
/// the ``SyncGate`` like a sync call: maintenance, the emergency minimum version, the rate limit.
public struct OrdersController: Sendable {
    let orders: OrderService

    public init(orders: OrderService) {
        self.orders = orders
    }

    public func register(on routes: APIRoutes) {
        routes.add(.POST, "/v1/orders", admission: .sync, handler: submit)
        routes.add(.POST, "/v1/orders/{orderId}/confirm", admission: .sync, handler: confirm)
        routes.add(.POST, "/v1/orders/{orderId}/reject", admission: .sync, handler: reject)
    }

    @Sendable func submit(_ device: DeviceContext) throws -> Response {
        let principal = try device.principal()
        let key = try IdempotencyKeyHeader.value(of: device.request)
        let body = try OrderRequest.validated(from: device.request)
        let receipt = try orders.submit(body, under: IdempotencyKey(endpoint: Self.submitEndpoint, value: key), by: principal) { order in
            RecordedResponse(status: 201, body: try Response.defaultJSONEncoder().encode(order))
        }
        var headers: HTTPHeaders = ["Content-Type": "application/json; charset=utf-8"]
        if receipt.replayed { headers["Idempotent-Replayed"] = "true" }
        return Response(status: receipt.response.status, headers: headers, body: .bytes(receipt.response.body))
    }

    @Sendable func confirm(_ device: DeviceContext) throws -> Response {
        let principal = try Self.officePrincipal(device)
        let orderId = try device.request.parameter("orderId")
        return try .json(orders.confirm(orderId, by: principal))
    }

    @Sendable func reject(_ device: DeviceContext) throws -> Response {
        let principal = try Self.officePrincipal(device)
        let orderId = try device.request.parameter("orderId")
        let body = try device.request.decode(RejectOrderRequest.self)
        guard !body.reason.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw APIError.validationFailed(field: "reason", "a rejection needs a reason")
        }
        try StorableText.require(body.reason, field: "reason")
        return try .json(orders.reject(orderId, reason: body.reason, by: principal))
    }

    /// The endpoint order keys belong to, as the idempotency ledger stores it.
    static let submitEndpoint = "POST /v1/orders"

    /// The caller, who must be a dispatcher or an admin (checked before the body is read).
    private static func officePrincipal(_ device: DeviceContext) throws -> Principal {
        let principal = try device.principal()
        guard principal.role.isOffice else { throw APIError.forbidden("only dispatchers and admins decide orders") }
        return principal
    }
}

/// The `Idempotency-Key` request header.
enum IdempotencyKeyHeader {
    static let name = "Idempotency-Key"
    static let maxLength = 255

    /// The key: 1–255 visible ASCII characters.
    /// - Throws: 400 `IDEMPOTENCY_KEY_REQUIRED` when absent or blank, 400 `VALIDATION_FAILED` when malformed.
    static func value(of request: Request) throws -> String {
        guard let key = request.headers[name]?.trimmingCharacters(in: .whitespaces), !key.isEmpty else {
            throw APIError(.idempotencyKeyRequired, "POST /v1/orders needs an Idempotency-Key header")
        }
        return try checked(key)
    }

    /// The key where it is optional (a push): nil when absent.
    /// - Throws: 400 `VALIDATION_FAILED` when present but blank or malformed.
    static func optionalValue(of request: Request) throws -> String? {
        try request.headers[name].map { try checked($0.trimmingCharacters(in: .whitespaces)) }
    }

    private static func checked(_ key: String) throws -> String {
        guard (1...maxLength).contains(key.utf8.count), key.utf8.allSatisfy({ (0x21...0x7e).contains($0) }) else {
            throw APIError.validationFailed(field: name, "an Idempotency-Key is 1-\(maxLength) visible ASCII characters")
        }
        return key
    }
}
