import AppTesting
import Foundation
import SyncProtocol

/// Order requests over HTTP, as a device sends them.
extension TestServer {
    /// A well-formed `POST /v1/orders` body for `orderId`.
    static func orderBody(_ orderId: String, customer: String = "cust-9", qty: Int = 2) -> Data {
        Data(#"{"orderId": "\#(orderId)", "customerId": "\#(customer)", "lines": [{"sku": "A-1", "qty": \#(qty)}], "note": "by noon"}"#.utf8)
    }

    /// `POST /v1/orders` with raw body bytes and, when given, an `Idempotency-Key`.
    func postOrder(_ body: Data, key: String?, token: String) async throws -> TestResponse {
        var headers = ["Content-Type": "application/json"]
        if let key { headers["Idempotency-Key"] = key }
        return try await client.send("POST", "/v1/orders", body: body, headers: headers, token: token)
    }

    /// Creates an order and returns it; fails unless the answer is 201.
    func createOrder(_ orderId: String, token: String) async throws -> Order {
        let response = try await postOrder(Self.orderBody(orderId), key: "key-\(orderId)", token: token)
        guard response.status == 201 else { throw TestServerError("order \(orderId) was not created: \(response)") }
        return try response.decode(Order.self)
    }

    /// `POST /v1/orders/{orderId}/confirm`, or `/reject` with `reason`.
    func decideOrder(_ orderId: String, reject reason: String? = nil, token: String) async throws -> TestResponse {
        guard let reason else {
            return try await client.send("POST", "/v1/orders/\(orderId)/confirm", body: nil, token: token)
        }
        return try await client.post("/v1/orders/\(orderId)/reject", json: RejectOrderRequest(reason: reason), token: token)
    }
}
