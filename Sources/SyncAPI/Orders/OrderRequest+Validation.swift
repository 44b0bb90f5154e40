import Foundation
import HTTP
import SyncProtocol

extension OrderRequest {
    /// The members a `POST /v1/orders` body may have.
    static let members: Set<String> = ["orderId", "customerId", "lines", "note"]

    /// Decodes and checks a `POST /v1/orders` body.
    ///
    /// Types and required members are checked by decoding; then members the endpoint does not
    /// take (a client must not believe it set `status`), and values the schema would accept but an
    /// order cannot use, each named by its path (`lines[2].qty`). The record rules (id format,
    /// at least one line) are the engine's, which names the field too.
    /// - Throws: 400 `MALFORMED_JSON`, or 400 `VALIDATION_FAILED` with `details.field`.
    static func validated(from request: Request) throws -> OrderRequest {
        let order = try request.decode(OrderRequest.self)
        let object = try request.decode([String: JSONValue].self)
        if let unknown = object.keys.sorted().first(where: { !members.contains($0) }) {
            throw APIError.validationFailed(field: unknown, "\(unknown) is not a member of an order request")
        }
        try order.checkValues()
        return order
    }

    private func checkValues() throws {
        if customerId.trimmingCharacters(in: .whitespaces).isEmpty {
            throw APIError.validationFailed(field: "customerId", "customerId must not be empty")
        }
        try StorableText.require(customerId, field: "customerId")
        try StorableText.require(note, field: "note")
        for (index, line) in lines.enumerated() {
            if line.sku.trimmingCharacters(in: .whitespaces).isEmpty {
                throw APIError.validationFailed(field: "lines[\(index)].sku", "sku must not be empty")
            }
            try StorableText.require(line.sku, field: "lines[\(index)].sku")
            if line.qty < 1 {
                throw APIError.validationFailed(field: "lines[\(index)].qty", "qty must be at least 1")
            }
        }
    }
}
