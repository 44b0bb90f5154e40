import Foundation
import HTTP
import Storage
import SyncEngine
import SyncProtocol

/// `POST /v1/orders`, `POST /v1/orders/{orderId}/confirm` and `…/reject` (PROTOCOL.md, Orders).
///
/// The back-office confirms and rejects through the same ``OrderService``. Every call passes
/// the ``SyncGate`` like a sync call: maintenance, the emergency minimum version, the rate limit.
public struct OrdersController: Sendable {
    let authenticator: Authenticator
    let principals: PrincipalResolver
    let gate: SyncGate
    let orders: OrderService

    public init(authenticator: Authenticator, principals: PrincipalResolver, gate: SyncGate, orders: OrderService) {
        self.authenticator = authenticator
        self.principals = principals
        self.gate = gate
        self.orders = orders
    }

    public func register(on router: Router) {
        router.add(.POST, "/v1/orders", handler: submit)
        router.add(.POST, "/v1/orders/{orderId}/confirm", handler: confirm)
        router.add(.POST, "/v1/orders/{orderId}/reject", handler: reject)
    }

    @Sendable func submit(_ request: Request) throws -> Response {
        let principal = try admitted(request)
        let key = try IdempotencyKeyHeader.value(of: request)
        let body = try OrderRequest.validated(from: request)
        let receipt = try mappingSyncErrors { try orders.submit(body, idempotencyKey: key, by: principal) }
        var headers: HTTPHeaders = ["Content-Type": "application/json; charset=utf-8"]
        if receipt.replayed { headers["Idempotent-Replayed"] = "true" }
        return Response(status: receipt.status, headers: headers, body: .bytes(receipt.body))
    }

    @Sendable func confirm(_ request: Request) throws -> Response {
        let principal = try officePrincipal(request)
        let orderId = try request.parameter("orderId")
        return .json(try mappingSyncErrors { try orders.confirm(orderId, by: principal) })
    }

    @Sendable func reject(_ request: Request) throws -> Response {
        let principal = try officePrincipal(request)
        let orderId = try request.parameter("orderId")
        let body = try request.decode(RejectOrderRequest.self)
        guard !body.reason.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw HTTPError.validationFailed(field: "reason", message: "a rejection needs a reason")
        }
        try StorableText.require(body.reason, field: "reason")
        return .json(try mappingSyncErrors { try orders.reject(orderId, reason: body.reason, by: principal) })
    }

    /// The authenticated caller, once the gate let the call through.
    private func admitted(_ request: Request) throws -> Principal {
        try principals.principal(for: try gate.admit(request, authenticatedBy: authenticator).identity)
    }

    /// The caller, who must be a dispatcher or an admin (checked before the body is read).
    private func officePrincipal(_ request: Request) throws -> Principal {
        let principal = try admitted(request)
        guard principal.role.isOffice else { throw HTTPError.forbidden(message: "only dispatchers and admins decide orders") }
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
            throw HTTPError(
                status: 400, code: ErrorCode.idempotencyKeyRequired.rawValue, message: "POST /v1/orders needs an Idempotency-Key header")
        }
        guard key.utf8.count <= maxLength, key.utf8.allSatisfy({ (0x21...0x7e).contains($0) }) else {
            throw HTTPError.validationFailed(field: name, message: "an Idempotency-Key is 1-\(maxLength) visible ASCII characters")
        }
        return key
    }
}
