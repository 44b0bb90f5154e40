import App
import Foundation
import SyncAPI
import SyncProtocol
import Testing

@Suite("Back-office live feed, over HTTP")
struct WebLiveFeedTests {
    /// Opens `GET /admin/events` with the browser's session cookie.
    static func openFeed(_ server: WebTestServer, as browser: Browser) async throws -> EventStreamConnection {
        let cookie = browser.cookies.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")
        let feed = try EventStreamConnection(port: server.app.port, path: "/admin/events", headers: ["Cookie": cookie])
        #expect(try await feed.open() == 200)
        return feed
    }

    @Test("a signed-in dispatcher's feed is an event stream that carries an order a device submits")
    func dispatcherReceivesOrder() async throws {
        let server = try WebTestServer()
        defer { server.stop() }
        try server.createUser("dee", role: .dispatcher)
        try server.createUser("ana", role: .field, team: "north")
        let feed = try await Self.openFeed(server, as: try server.signedIn(as: "dee"))
        #expect(feed.headers["content-type"]?.hasPrefix("text/event-stream") == true)
        let device = try WebDevice(server, username: "ana", deviceId: "ana-phone")
        let order = #"{"orderId": "ORD-1", "customerId": "cust-9", "lines": [{"sku": "A-1", "qty": 2}]}"#
        let created = try device.post("/v1/orders", json: Data(order.utf8), headers: [("Idempotency-Key", "k-1")])
        try #require(created.status == 201, "order answered \(created.status): \(created.body)")
        let events = try await feed.events(until: { $0.event.hasPrefix("order.") && $0.json["orderId"]?.stringValue == "ORD-1" })
        #expect(events.last?.event == "order.created")
    }

    @Test("a decision made on the order page reaches the feed as one order.status_changed")
    func decisionReachesFeed() async throws {
        let server = try WebTestServer()
        defer { server.stop() }
        _ = try WebOrdersTests.seed(server)
        let browser = try server.signedIn(as: "dee")
        let feed = try await Self.openFeed(server, as: browser)
        let done = try browser.submit("/admin/orders/ORD-1/confirm", from: "/admin/orders/ORD-1")
        #expect(done.status == 303)
        let events = try await feed.events(until: { $0.event == "order.status_changed" })
        #expect(events.last?.json["status"]?.stringValue == "CONFIRMED")
        #expect(try await feed.events(during: 0.5).filter { $0.event == "order.status_changed" }.isEmpty)
    }

    @Test("the dashboard has the live operations panel, which says it needs JavaScript until the script runs")
    func dashboardPanel() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        let page = try server.signedIn().get("/admin")
        #expect(page.body.contains("Live operations"))
        #expect(page.body.contains(#"data-live-feed="/admin/events""#))
        #expect(page.body.contains("The live feed needs JavaScript."))
    }

    @Test("a field user cannot sign in to reach the feed, and a signed-out request is sent to sign in")
    func access() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        try server.createUser("ana", role: .field, team: "north")
        let browser = Browser(port: server.app.port)
        #expect(try browser.signIn("ana", password: WebTestServer.password).status != 303)
        let feed = try browser.get("/admin/events")
        #expect(feed.status == 303)
        #expect(feed.location?.hasPrefix("/login?next=") == true)
        #expect(feed.header("Content-Type")?.hasPrefix("text/event-stream") != true)
    }
}
