import App
import Foundation
import SyncAPI
import SyncProtocol
import Testing

@Suite("Live queues, over HTTP")
struct WebLiveQueueTests {
    /// The value of the first `name="…"` attribute in `body`, HTML entities for quotes and
    /// ampersands undone.
    static func attribute(_ name: String, in body: String) -> String? {
        guard let start = body.range(of: "\(name)=\"") else { return nil }
        let value = body[start.upperBound...].prefix { $0 != "\"" }
        return value.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&amp;", with: "&")
    }

    /// The dashboard feed's link templates for `username`, by subject.
    static func links(_ server: WebTestServer, as username: String?) throws -> [String: String] {
        let body = try server.signedIn(as: username).get("/admin").body
        let json = try #require(attribute("data-live-links", in: body), "no link templates on the dashboard")
        return try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: String])
    }

    @Test("feed rows link only to pages the viewer may open: orders and conflicts for the office, record histories for supervisors")
    func linksFollowTheRole() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        try server.createUser("dee", role: .dispatcher)
        try server.createUser("sue", role: .supervisor, team: "north")
        let records = "/admin/sync/records/{collection}/{recordId}"
        #expect(
            try Self.links(server, as: nil) == [
                "order": "/admin/orders/{orderId}", "conflict": "/admin/conflicts/{conflictId}", "record": records,
                "device": "/admin/sync/devices/{deviceId}", "settings": "/admin/settings",
            ])
        let dispatcher = try Self.links(server, as: "dee")
        #expect(dispatcher["order"] == "/admin/orders/{orderId}" && dispatcher["conflict"] == "/admin/conflicts/{conflictId}")
        #expect(dispatcher["settings"] == nil)
        #expect(
            try Self.links(server, as: "sue") == [
                "order": "/admin/sync/records/orders/{orderId}", "conflict": records, "record": records,
                "device": "/admin/sync/devices/{deviceId}",
            ])
    }

    @Test("the queues and the dashboard counters mark what follows the feed, and on which events")
    func regionsAreMarked() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        let browser = try server.signedIn()
        let orders = try browser.get("/admin/orders").body
        #expect(orders.contains(#"data-live-region="orders" data-live-source="/admin/events" data-live-on="order.created order.status_changed""#))
        let conflicts = try browser.get("/admin/conflicts").body
        #expect(conflicts.contains(#"data-live-region="conflicts" data-live-source="/admin/events" data-live-on="conflict.opened conflict.resolved""#))
        #expect(conflicts.contains(#"data-live-region="conflicts-total""#))
        let dashboard = try browser.get("/admin").body
        #expect(dashboard.contains(#"data-live-region="dashboard-cards""#))
        #expect(Self.attribute("data-live-on", in: dashboard)?.split(separator: " ").contains("conflict.opened") == true)
    }

    @Test("a supervisor without a team has no counters to follow")
    func noTeamNoRegion() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        try server.createUser("lone", role: .supervisor)
        let body = try server.signedIn(as: "lone").get("/admin").body
        #expect(body.contains("You are not in a team yet") && !body.contains("data-live-region"))
    }

    @Test("a conflict opened by a device and resolved in the back-office reach the dispatcher's feed with the ids the rows link by")
    func conflictEventsReachTheFeed() async throws {
        let server = try WebTestServer()
        defer { server.stop() }
        try server.createUser("dina", role: .dispatcher)
        let browser = try server.signedIn(as: "dina")
        let feed = try await WebLiveFeedTests.openFeed(server, as: browser)
        let scenario = try ReviewScenario.open(server)
        let opened = try await feed.events(until: { $0.event == "conflict.opened" })
        #expect(opened.last?.json["conflictId"]?.stringValue == scenario.conflictId)
        let path = "/admin/conflicts/\(scenario.conflictId)"
        #expect(try browser.submit(path + "/resolve", from: path, [("choice", "server")]).status == 303)
        let resolved = try await feed.events(until: { $0.event == "conflict.resolved" })
        let data = try #require(resolved.last?.json)
        #expect(data["conflictId"]?.stringValue == scenario.conflictId)
        #expect(data["collection"]?.stringValue == "reports" && data["recordId"]?.stringValue == "rep-1")
    }
}
