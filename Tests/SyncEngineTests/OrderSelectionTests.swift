import SyncEngine
import SyncEngineTesting
import SyncProtocol
import Testing

@Suite("Confirming a selection of orders")
struct OrderSelectionTests {
    private static func submit(_ h: Harness, _ ids: [String]) throws {
        for id in ids {
            _ = try h.changes.createOrder(OrderRequest(orderId: id, customerId: "c-\(id)", lines: [OrderLine(sku: "A", qty: 1)]), by: People.ana)
        }
    }

    @Test("a selection holds 1 to 200 distinct well-formed ids, and says which ones are not")
    func selection() throws {
        #expect(try OrderSelection(["b", "a"]).orderIds == ["b", "a"])
        #expect(try OrderSelection((1...OrderSelection.limit).map { "o-\($0)" }).orderIds.count == 200)
        let refused: [([String], OrderSelection.Refusal.Reason, String)] = [
            ([], .empty, "No order was selected"),
            ((0...OrderSelection.limit).map { "o-\($0)" }, .tooMany, "201 orders were selected; at most 200"),
            (["ok", "", "a b", "é"], .malformed, "not order ids, so nothing was changed: (empty), a b, é."),
            ((1...7).map { "bad id \($0)" }, .malformed, "bad id 5 and 2 more."),
            ([String(repeating: "x", count: 129)], .malformed, String(repeating: "x", count: 40) + "…."),
            (["a", "b", "a", "b", "a"], .repeated, "more than once, so nothing was changed: a, b."),
        ]
        for (ids, reason, text) in refused {
            #expect(throws: OrderSelection.Refusal.self) { try OrderSelection(ids) }
            do {
                _ = try OrderSelection(ids)
            } catch {
                #expect(error.reason == reason && error.message.contains(text), "\(error.message)")
            }
        }
    }

    @Test("confirms the submitted orders in one transaction, each its own change and events, and names those decided already")
    func confirmsAndNames() throws {
        let h = try Harness()
        try Self.submit(h, ["o-1", "o-2", "o-3"])
        _ = try h.changes.rejectOrder("o-2", reason: "no", by: People.adam)
        let before = h.state.events.count
        let (confirmed, decided) = try h.changes.confirmOrders(try OrderSelection(["o-3", "o-2", "o-1"]), by: People.dora)
        #expect(confirmed.map(\.recordId) == ["o-3", "o-1"] && decided == ["o-2"])
        #expect(confirmed.allSatisfy { $0.payload["status"] == "CONFIRMED" && $0.fieldMeta["status"]?.deviceId == "web:u-dora" })
        #expect(Set(confirmed.compactMap { $0.fieldMeta["status"]?.opId }).count == 2)
        let events = h.state.events.dropFirst(before)
        #expect(events.filter { $0.type == .orderStatusChanged }.map(\.recordId).sorted() == ["o-1", "o-3"])
        #expect(h.record("orders", "o-2")?.payload["status"] == "REJECTED")
    }

    @Test("an unknown id changes nothing and is named; field users are FORBIDDEN")
    func refusals() throws {
        let h = try Harness()
        try Self.submit(h, ["o-1"])
        do {
            _ = try h.changes.confirmOrders(try OrderSelection(["o-1", "o-404"]), by: People.dora)
            Issue.record("an unknown order must refuse the selection")
        } catch let error as SyncError {
            #expect(error.code == .notFound && error.details?["orderIds"] == ["o-404"])
        }
        #expect(throws: SyncError.self) { try h.changes.confirmOrders(try OrderSelection(["o-1"]), by: People.ana) }
        #expect(h.record("orders", "o-1")?.payload["status"] == "SUBMITTED")
    }
}
