import SyncProtocol
import Testing

@testable import WebUI

@Suite("Live feed links")
struct LiveFeedLinksTests {
    @Test("a subject whose pages are not installed gets no link, whatever the role")
    func unavailableAreas() {
        let onlyOrders = LiveFeedLinks.templates(for: .admin) { $0 == .orders }
        #expect(onlyOrders == [.order: "/admin/orders/{orderId}"])
        #expect(LiveFeedLinks.templates(for: .supervisor) { $0 == .orders || $0 == .conflicts }.isEmpty)
    }

    @Test("a field user, who has no back-office, gets no links")
    func field() {
        #expect(LiveFeedLinks.templates(for: .field) { _ in true }.isEmpty)
    }

    @Test("the JSON form is one object of path templates, with nothing from events in it")
    func json() {
        #expect(LiveFeedLinks.json(for: .dispatcher) { $0 == .orders } == #"{"order":"/admin/orders/{orderId}"}"#)
    }
}
