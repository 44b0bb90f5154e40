import Foundation
import SyncEngine
import SyncEngineTesting
import SyncProtocol
import Testing

/// Orders through the sync store with its idempotency ledger, in memory and on PostgreSQL.
@Suite("Orders contract: idempotent submission and status changes")
struct OrderContractTests {
    private let key = IdempotencyKey(endpoint: "POST /v1/orders", value: "key-1")

    private func request(_ orderId: String, lines: [OrderLine] = [OrderLine(sku: "A-1", qty: 2)]) -> OrderRequest {
        OrderRequest(orderId: orderId, customerId: "cust-9", lines: lines, note: "urgent")
    }

    private func submit(_ h: SyncSubject, _ request: OrderRequest, by principal: Principal) throws -> OrderReceipt {
        try h.orders.submit(request, under: key, by: principal) { order in
            RecordedResponse(status: 201, body: Data("\(order.orderId) \(order.status.rawValue) \(order.serverSeq)".utf8))
        }
    }

    private func code(_ body: () throws -> Any) -> ErrorCode? {
        do {
            _ = try body()
            return nil
        } catch {
            return (error as? SyncError)?.code
        }
    }

    @Test(
        "a key answers its first response again; another body under it is IDEMPOTENCY_KEY_REUSED; keys are per user",
        arguments: Implementation.allCases)
    func idempotentSubmission(_ implementation: Implementation) throws {
        let h = try SyncSubject(implementation)
        let first = try submit(h, request("ord-1"), by: People.ana)
        #expect(!first.replayed && first.response == RecordedResponse(status: 201, body: Data("ord-1 SUBMITTED 1".utf8)))
        let before = try h.snapshot()

        let again = try submit(h, request("ord-1"), by: People.ana)

        #expect(again.replayed && again.response == first.response)
        #expect(code { try submit(h, request("ord-2"), by: People.ana) } == .idempotencyKeyReused)
        #expect(try h.snapshot().changes == before.changes)
        #expect(try !submit(h, request("ord-2"), by: People.ben).replayed, "ben's key is not ana's")
    }

    @Test("a refused submission stores no answer: the key is free for a corrected request", arguments: Implementation.allCases)
    func refusedSubmissionKeepsNoAnswer(_ implementation: Implementation) throws {
        let h = try SyncSubject(implementation)
        #expect(code { try submit(h, request("ord-1", lines: []), by: People.ana) } == .validationFailed)
        #expect(try h.record("orders", "ord-1") == nil)

        let corrected = try submit(h, request("ord-1"), by: People.ana)

        #expect(!corrected.replayed)
        #expect(try h.record("orders", "ord-1")?.payload["status"] == "SUBMITTED")
    }

    @Test(
        "the office confirms or rejects a SUBMITTED order once, each a new change; field users may not; unknown ids are NOT_FOUND",
        arguments: Implementation.allCases)
    func statusChanges(_ implementation: Implementation) throws {
        let h = try SyncSubject(implementation)
        _ = try submit(h, request("ord-1"), by: People.ana)
        _ = try h.orders.submit(request("ord-2"), under: IdempotencyKey(endpoint: key.endpoint, value: "key-2"), by: People.ana) { _ in
            RecordedResponse(status: 201, body: Data())
        }

        #expect(code { try h.orders.confirm("ord-1", by: People.ana) } == .forbidden)
        #expect(code { try h.orders.confirm("ord-404", by: People.dora) } == .notFound)
        let confirmed = try h.orders.confirm("ord-1", by: People.dora)
        let rejected = try h.orders.reject("ord-2", reason: "no stock", by: People.adam)

        #expect(confirmed.status == .confirmed && rejected.status == .rejected && rejected.rejectionReason == "no stock")
        #expect(confirmed.serverSeq > 2 && rejected.serverSeq > confirmed.serverSeq)
        #expect(code { try h.orders.confirm("ord-1", by: People.dora) } == .orderNotSubmitted)
        #expect(code { try h.orders.reject("ord-2", reason: "again", by: People.dora) } == .orderNotSubmitted)
        let pulled = try h.drain(People.ana).changes.filter { $0.collection == "orders" }
        #expect(pulled.map { $0.payload?["status"] } == ["CONFIRMED", "REJECTED"])
    }
}
