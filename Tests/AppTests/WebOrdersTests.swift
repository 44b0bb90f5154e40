import App
import Foundation
import Postgres
import SyncProtocol
import Testing

@Suite("Order pages, over HTTP")
struct WebOrdersTests {
    /// A dispatcher `dee`, a supervisor `sue`, and order `ORD-1` that field user ana's
    /// phone submitted with `note`.
    static func seed(_ server: WebTestServer, note: String = "by noon") throws -> WebDevice {
        try server.createUser("dee", role: .dispatcher)
        try server.createUser("sue", role: .supervisor, team: "north")
        try server.createUser("ana", role: .field, team: "north")
        let device = try WebDevice(server, username: "ana", deviceId: "ana-phone")
        let body = try JSONEncoder().encode(
            OrderRequest(orderId: "ORD-1", customerId: "cust-9", lines: [OrderLine(sku: "A-1", qty: 2)], note: note))
        let created = try device.post("/v1/orders", json: body, headers: [("Idempotency-Key", "k-ORD-1")])
        try #require(created.status == 201, "order answered \(created.status): \(created.body)")
        return device
    }

    static func status(_ server: WebTestServer) throws -> String? {
        try server.record("orders", "ORD-1").payload["status"]?.stringValue
    }

    @Test("the queue lists submitted orders with customer, lines and submitter; the filter shows decided ones")
    func queue() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        _ = try Self.seed(server)
        let browser = try server.signedIn(as: "dee")
        let page = try browser.get("/admin/orders")
        #expect(page.status == 200)
        for text in ["ORD-1", "cust-9", "2 × A-1", "ana", "/admin/orders/ORD-1"] { #expect(page.body.contains(text), "missing \(text)") }
        let confirmed = try browser.get("/admin/orders?status=CONFIRMED")
        #expect(confirmed.body.contains("No orders with this status"))
        #expect(!confirmed.body.contains("/admin/orders/ORD-1"))
    }

    @Test("confirming on the order page is one click that changes the status once, and the device's pull sees it")
    func confirm() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        let device = try Self.seed(server)
        let before = try server.record("orders", "ORD-1").serverSeq
        let browser = try server.signedIn(as: "dee")
        let page = try browser.get("/admin/orders/ORD-1")
        #expect(page.body.contains(#"<form method="post" action="/admin/orders/ORD-1/confirm""#))
        let done = try browser.submit("/admin/orders/ORD-1/confirm", from: "/admin/orders/ORD-1")
        #expect(done.status == 303 && done.location == "/admin/orders/ORD-1?notice=confirmed")
        let after = try server.record("orders", "ORD-1")
        #expect(after.payload["status"]?.stringValue == "CONFIRMED" && after.serverSeq > before)
        let events = try server.integer("SELECT count(*)::int FROM events WHERE type = 'order.status_changed'")
        #expect(events == 1)
        let pull = try device.get("/v1/sync/pull?limit=500")
        #expect(pull.status == 200 && pull.body.contains("CONFIRMED"), "pull: \(pull.body)")
        let shown = try browser.get("/admin/orders/ORD-1?notice=confirmed")
        #expect(shown.body.contains("Order confirmed.") && shown.body.contains("<dt>Decided by</dt><dd>dee</dd>"))
        let again = try browser.submit("/admin/orders/ORD-1/confirm", from: "/admin/orders/ORD-1")
        #expect(again.status == 409 && again.body.contains("Someone decided this order a moment ago"))
        #expect(try server.integer("SELECT count(*)::int FROM events WHERE type = 'order.status_changed'") == 1)
    }

    @Test("the queue's Confirm button confirms its row's order in one post")
    func confirmFromQueue() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        _ = try Self.seed(server)
        let browser = try server.signedIn(as: "dee")
        let done = try browser.submit("/admin/orders/ORD-1/confirm", from: "/admin/orders", [("from", "queue")])
        #expect(done.status == 303 && done.location == "/admin/orders?confirmed=ORD-1")
        #expect(try Self.status(server) == "CONFIRMED")
        let queue = try browser.get("/admin/orders?confirmed=ORD-1")
        #expect(queue.body.contains("Order ORD-1 confirmed.") && !queue.body.contains("/admin/orders/ORD-1"))
        // The notice speaks only of an order that is confirmed.
        #expect(!(try browser.get("/admin/orders?confirmed=ORD-404").body.contains("ORD-404")))
    }

    @Test("rejecting needs a reason, asks first, and stores the reason")
    func reject() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        _ = try Self.seed(server)
        let browser = try server.signedIn(as: "dee")
        let blank = try browser.submit("/admin/orders/ORD-1/reject", from: "/admin/orders/ORD-1", [("reason", "  "), ("confirmed", "yes")])
        #expect(blank.status == 422 && blank.body.contains("Give a reason"))
        #expect(try Self.status(server) == "SUBMITTED")
        let asked = try browser.submit("/admin/orders/ORD-1/reject", from: "/admin/orders/ORD-1", [("reason", "Out of stock")])
        #expect(asked.status == 200 && asked.body.contains("Reject order ORD-1?") && asked.body.contains(#"value="Out of stock""#))
        #expect(try Self.status(server) == "SUBMITTED")
        let done = try browser.submit(
            "/admin/orders/ORD-1/reject", from: "/admin/orders/ORD-1", [("reason", "Out of stock"), ("confirmed", "yes")])
        #expect(done.status == 303)
        let record = try server.record("orders", "ORD-1").payload
        #expect(record["status"]?.stringValue == "REJECTED" && record["rejectionReason"]?.stringValue == "Out of stock")
    }

    @Test("a decision without the CSRF token is refused with 403 and changes nothing")
    func csrf() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        _ = try Self.seed(server)
        let browser = try server.signedIn(as: "dee")
        let forged = try browser.post("/admin/orders/ORD-1/confirm", [])
        #expect(forged.status == 403)
        #expect(try Self.status(server) == "SUBMITTED")
    }

    @Test("supervisors get 403 on the order pages and signed-out visitors are sent to sign in")
    func access() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        _ = try Self.seed(server)
        let supervisor = try server.signedIn(as: "sue")
        #expect(try supervisor.get("/admin/orders").status == 403)
        #expect(try supervisor.get("/admin/orders/ORD-1").status == 403)
        #expect(try server.signedIn().get("/admin/orders").status == 200)
        let visitor = Browser(port: server.app.port)
        let list = try visitor.get("/admin/orders/ORD-1")
        #expect(list.status == 303 && list.location?.hasPrefix("/login?next=") == true)
        #expect(try visitor.post("/admin/orders/ORD-1/confirm", [("confirmed", "yes")]).status == 303)
        #expect(try Self.status(server) == "SUBMITTED")
    }

    @Test("markup in an order's note is shown as text")
    func escaping() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        _ = try Self.seed(server, note: "<script>alert('note')</script>")
        let page = try server.signedIn(as: "dee").get("/admin/orders/ORD-1")
        #expect(!page.body.contains("<script>alert"))
        #expect(page.body.contains("&lt;script&gt;"))
    }
}
