import App
import AppTesting
import Foundation
import HTTP
import Storage
import Support
import SyncAPI
import SyncEngine
import SyncProtocol
import Testing

/// Live events across instances, under a stalled client, and on the back-office feed.
@Suite("Live events fan-out", .serialized)
struct LiveEventsFanOutTests {
    @Test("An event committed through one instance reaches a subscriber of another instance on the same database")
    func acrossInstances() async throws {
        let first = try await TestServer.start()
        defer { first.stop() }
        let second = try await TestServer.start(database: first.database)
        defer { second.stop() }
        let (_, anaToken) = try await first.makeDevice()
        let (_, dora) = try await first.makeDevice(role: .dispatcher, team: nil)
        let feedOnSecond = try await second.openFeed(token: anaToken)

        _ = try await first.createOrder("ord-1", token: anaToken)
        let created = try await feedOnSecond.events(until: { $0.event == "order.created" }, timeout: 5)
        let confirmed = try await first.decideOrder("ord-1", token: dora).decode(Order.self)
        let changed = try await feedOnSecond.events(until: { $0.event == "order.status_changed" }, timeout: 5)

        #expect(created.last?.subject == "ord-1")
        #expect(changed.last?.json == ["orderId": "ord-1", "status": "CONFIRMED", "serverSeq": .int(confirmed.serverSeq)])
    }

    @Test("A stalled client is disconnected once its queue overflows, and never delays delivery to the others")
    func stalledClient() async throws {
        let server = try await TestServer.start(configure: { $0.liveEvents.queueLimit = 20 })
        defer { server.stop() }
        let (ana, token) = try await server.makeDevice()
        // Never read, with a tiny receive buffer. The kernel still buffers a few megabytes on the
        // server's side of a loopback connection, so the events below are 64 KiB each.
        let stalled = try EventStreamConnection(
            port: server.application.port, headers: ["Authorization": "Bearer \(token)"], receiveBufferBytes: 1024)
        let fast = try await server.openFeed(token: token)
        try await waitUntil { server.liveFeed.hub.subscriberCount == 2 }

        // Each batch must reach the fast client within the read timeout even while the stalled
        // one is full: a stalled client that held up delivery would make this throw.
        for batch in 0..<12 {
            let subjects = try server.appendLargeEvents(10, for: ana, prefix: "big-\(batch)")
            let events = try await fast.events(until: { $0.subject == subjects[9] }, timeout: 5)
            #expect(events.map(\.subject) == subjects, "every event, in order")
        }

        #expect(server.liveFeed.hub.subscriberCount == 1, "the stalled client was dropped")
        #expect(try await stalled.open() == 200)
        #expect(try await stalled.waitForEnd(), "reading again, the stalled client finds its stream ended (it resumes with Last-Event-ID)")
    }

    @Test("The back-office feed shows a dispatcher orders and conflicts only, and a supervisor its own team")
    func backOfficeFeed() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let (ana, anaToken) = try await server.makeDevice(team: "north")
        let (carl, carlToken) = try await server.makeDevice(team: "south")
        let (dora, doraToken) = try await server.makeDevice(role: .dispatcher, team: nil)
        let (sue, _) = try await server.makeDevice(role: .supervisor, team: "north")
        let office = try BackOfficeFeedServer(server)
        defer { office.stop() }
        let doraFeed = try await office.open(as: dora)
        let sueFeed = try await office.open(as: sue)

        try server.createJobs(1, as: carl)
        _ = try await server.createOrder("ord-carl", token: carlToken)
        let anaJob = try server.createJobs(1, as: ana)[0]
        _ = try await server.createOrder("ord-ana", token: anaToken)
        _ = try await server.decideOrder("ord-ana", token: doraToken)

        let doraEvents = try await doraFeed.events(until: { $0.event == "order.status_changed" })
        let sueEvents = try await sueFeed.events(until: { $0.event == "order.status_changed" })
        #expect(doraEvents.map(\.event) == ["order.created", "order.created", "order.status_changed"])
        #expect(doraEvents.map(\.subject) == ["ord-carl", "ord-ana", "ord-ana"])
        #expect(sueEvents.map(\.subject) == [anaJob, "ord-ana", "ord-ana", "ord-ana", "ord-ana"])
    }

    private func waitUntil(_ condition: () -> Bool) async throws {
        for _ in 0..<500 where !condition() { try await Task.sleep(for: .milliseconds(10)) }
        #expect(condition())
    }
}

/// `GET /admin/events` as the back-office registers it: the session's user goes to
/// `LiveEventsController.backOfficeFeed(for:request:stillSignedIn:)`. Here the signed-in user is
/// named by a test header instead of a session cookie, and never signs out.
private final class BackOfficeFeedServer: Sendable {
    let http: HTTPServer

    init(_ server: TestServer) throws {
        let core = server.core
        let events = LiveEventsController(authenticator: core.authenticator, principals: core.principals, hub: server.liveFeed.hub)
        let router = Router()
        router.add(.GET, "/admin/events") { request in
            guard let user = try core.accounts.user(id: request.headers["X-Test-User"] ?? "") else { throw APIError.unauthenticated() }
            return try events.backOfficeFeed(for: user, request: request) { true }
        }
        http = HTTPServer(configuration: .init(port: 0), router: router, logger: Logger(label: "test", level: .warning))
        try http.start()
    }

    func open(as user: UserAccount) async throws -> EventStreamConnection {
        let feed = try EventStreamConnection(port: http.port, path: "/admin/events", headers: ["X-Test-User": user.id])
        guard try await feed.open() == 200 else { throw TestServerError("the back-office feed refused \(user.username)") }
        return feed
    }

    func stop() {
        http.shutdown(timeout: .seconds(5))
    }
}
