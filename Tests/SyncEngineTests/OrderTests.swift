import Foundation
import SyncEngine
import SyncEngineTesting
import SyncProtocol
import Testing

@Suite("Orders")
struct OrderTests {
    private let request = OrderRequest(orderId: "ord-1", customerId: "cust-9", lines: [OrderLine(sku: "A-1", qty: 2)], note: "urgent")

    @Test("POST /v1/orders creates a SUBMITTED order in the author's scope and announces order.created")
    func create() throws {
        let h = try Harness()
        let order = try h.changes.createOrder(request, by: People.ana)
        #expect(order.payload["status"] == "SUBMITTED" && order.payload["lines"] == [["sku": "A-1", "qty": 2]] && order.payload["note"] == "urgent")
        #expect(order.scopeKeys == [.team("t-1"), .user("u-ana")] && order.serverSeq == 1 && order.createdAt == h.clock.stamp())
        let events = h.state.events
        #expect(events.map(\.type) == [.recordChanged, .orderCreated])
        #expect(events[1].data == ["orderId": "ord-1", "status": "SUBMITTED", "serverSeq": 1])
        #expect(throws: SyncError.self) { try h.changes.createOrder(request, by: People.ana) }
        let empty = OrderRequest(orderId: "ord-2", customerId: "c", lines: [])
        do {
            _ = try h.changes.createOrder(empty, by: People.ana)
            Issue.record("an order needs lines")
        } catch let error as SyncError {
            #expect(error.code == .validationFailed && error.details?["field"] == "lines")
        }
    }

    @Test("Confirm moves SUBMITTED to CONFIRMED with a new seq and order.status_changed to the orderer; twice is ORDER_NOT_SUBMITTED")
    func confirm() throws {
        let h = try Harness()
        let created = try h.changes.createOrder(request, by: People.ana)
        let confirmed = try h.changes.confirmOrder("ord-1", by: People.dora)
        #expect(confirmed.payload["status"] == "CONFIRMED" && confirmed.serverSeq > created.serverSeq)
        #expect(confirmed.fieldMeta["status"]?.deviceId == "web:u-dora")
        let event = try #require(h.state.events.last)
        #expect(event.type == .orderStatusChanged && event.status == "CONFIRMED" && event.serverSeq == confirmed.serverSeq)
        #expect(event.audience.scopeKeys.contains(.user("u-ana")))
        do {
            _ = try h.changes.confirmOrder("ord-1", by: People.dora)
            Issue.record("confirming twice must fail")
        } catch let error as SyncError {
            #expect(error.code == .orderNotSubmitted && error.code.httpStatus == 409)
        }
    }

    @Test("Reject fills rejectionReason; field users get FORBIDDEN; unknown orders NOT_FOUND")
    func reject() throws {
        let h = try Harness()
        _ = try h.changes.createOrder(request, by: People.ana)
        let codes: [(Principal, String, ErrorCode)] = [(People.ana, "ord-1", .forbidden), (People.dora, "ord-404", .notFound)]
        for (principal, id, code) in codes {
            do {
                _ = try h.changes.rejectOrder(id, reason: "no stock", by: principal)
                Issue.record("\(principal.userId) \(id)")
            } catch let error as SyncError {
                #expect(error.code == code)
            }
        }
        let rejected = try h.changes.rejectOrder("ord-1", reason: "no stock", by: People.adam)
        #expect(rejected.payload["status"] == "REJECTED" && rejected.payload["rejectionReason"] == "no stock")
    }

    @Test("Order changes can join a transaction the caller holds and roll back with it")
    func callerTransaction() throws {
        let h = try Harness()
        let (changes, request) = (h.changes, request)
        #expect(throws: InjectedStoreFailure.self) {
            try h.store.transaction { tx in
                _ = try changes.createOrder(request, by: People.ana, in: tx)
                throw InjectedStoreFailure()
            }
        }
        #expect(h.record("orders", "ord-1") == nil)
        let order = try h.store.transaction { tx in try changes.createOrder(request, by: People.ana, in: tx) }
        #expect(h.record("orders", "ord-1") == order)
    }

    @Test("Orders pushed by devices start SUBMITTED; only the office moves status, along the declared transitions")
    func pushedOrders() throws {
        var h = try Harness()
        let create = try h.push1(
            h.ops.op(People.ana, .create, "orders", "ord-7", ["customerId": "c", "lines": [["sku": "A", "qty": 1]]]), by: People.ana)
        let events = h.state.events
        #expect(create.status == .applied && events.contains { $0.type == .orderCreated && $0.recordId == "ord-7" })
        let sneaky = try h.push1(h.ops.op(People.ana, .update, "orders", "ord-7", ["status": "CONFIRMED"], base: create.serverSeq), by: People.ana)
        #expect(sneaky.code == .fieldReadOnly && sneaky.details?["field"] == "status")
        let confirm = try h.push1(h.ops.op(People.dora, .update, "orders", "ord-7", ["status": "CONFIRMED"], base: create.serverSeq), by: People.dora)
        #expect(confirm.status == .applied)
        let flip = try h.push1(h.ops.op(People.dora, .update, "orders", "ord-7", ["status": "REJECTED"], base: confirm.serverSeq), by: People.dora)
        #expect(flip.code == .transitionNotAllowed)
    }
}
