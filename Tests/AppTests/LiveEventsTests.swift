import App
import AppTesting
import Foundation
import SyncAPI
import SyncProtocol
import Testing

/// `GET /v1/events` end to end (PROTOCOL.md, Live events): permissions, resuming, heartbeats.
@Suite("Live events feed", .serialized)
struct LiveEventsTests {
    @Test("A field user's feed carries its own orders and its team's records, never a teammate's orders or another team")
    func fieldUserFiltering() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let (_, anaToken) = try await server.makeDevice(team: "north")
        let (ben, benToken) = try await server.makeDevice(team: "north")
        let (carl, _) = try await server.makeDevice(team: "south")
        let (_, dora) = try await server.makeDevice(role: .dispatcher, team: nil)
        let anaFeed = try await server.openFeed(token: anaToken)
        let benFeed = try await server.openFeed(token: benToken)

        let order = try await server.createOrder("ord-ana", token: anaToken)
        let confirmed = try await server.decideOrder("ord-ana", token: dora).decode(Order.self)
        let carlJobs = try server.createJobs(1, as: carl)
        let marker = try server.createJobs(1, as: ben)[0]

        let anaEvents = try await anaFeed.events(until: { $0.subject == marker })
        let benEvents = try await benFeed.events(until: { $0.subject == marker })
        #expect(anaEvents.map(\.event) == ["record.changed", "order.created", "record.changed", "order.status_changed", "record.changed"])
        #expect(anaEvents[1].json == ["orderId": "ord-ana", "status": "SUBMITTED", "serverSeq": .int(order.serverSeq)])
        #expect(anaEvents[3].json == ["orderId": "ord-ana", "status": "CONFIRMED", "serverSeq": .int(confirmed.serverSeq)])
        #expect(zip(anaEvents, anaEvents.dropFirst()).allSatisfy { $0.number < $1.number }, "ids grow")
        #expect(benEvents.map(\.subject) == [marker], "nothing of ana's order, nothing of the south team")
        #expect(!anaEvents.contains { $0.subject == carlJobs[0] })
    }

    @Test("A supervisor's feed carries its team's activity and never another team's")
    func supervisorFiltering() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let (ana, anaToken) = try await server.makeDevice(team: "north")
        let (carl, carlToken) = try await server.makeDevice(team: "south")
        let (_, sue) = try await server.makeDevice(role: .supervisor, team: "north")
        let feed = try await server.openFeed(token: sue)

        let southJobs = try server.createJobs(2, as: carl)
        _ = try await server.createOrder("ord-carl", token: carlToken)
        _ = try await server.createOrder("ord-ana", token: anaToken)
        let marker = try server.createJobs(1, as: ana)[0]

        let events = try await feed.events(until: { $0.subject == marker })
        #expect(events.map(\.subject) == ["ord-ana", "ord-ana", marker])
        #expect(!events.contains { southJobs.contains($0.subject ?? "") || $0.subject == "ord-carl" })
    }

    @Test("Reconnecting with Last-Event-ID replays exactly the missed events, in order")
    func replay() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let (ana, token) = try await server.makeDevice()
        var feed: EventStreamConnection? = try await server.openFeed(token: token)
        let seen = try server.createJobs(3, as: ana)
        let received = try await feed!.events(until: { $0.subject == seen[2] })
        feed = nil

        let missed = try server.createJobs(2, as: ana)
        let resumed = try await server.openFeed(token: token, lastEventId: received[2].id)
        let replayed = try await resumed.events(until: { $0.subject == missed[1] })
        let fromFirst = try await server.openFeed(token: token, lastEventId: received[0].id)
        let longer = try await fromFirst.events(until: { $0.subject == missed[1] })

        #expect(received.map(\.subject) == seen)
        #expect(replayed.map(\.subject) == missed)
        #expect(replayed[0].number > received[2].number)
        #expect(longer.map(\.subject) == Array(seen.dropFirst()) + missed)
    }

    @Test("Resuming from beyond the five-minute window, from deleted events or from an unknown id gives one reset, then live events")
    func reset() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let (ana, token) = try await server.makeDevice()
        let feed = try await server.openFeed(token: token)
        let first = try server.createJobs(2, as: ana)
        let events = try await feed.events(until: { $0.subject == first[1] })
        try server.ageEvents(after: events[0].number - 1)

        let stale = try await server.openFeed(token: token, lastEventId: events[0].id)
        let staleReset = try await stale.nextEvent()
        let unknown = try await server.openFeed(token: token, lastEventId: "not-an-id")
        let unknownReset = try await unknown.nextEvent()
        try server.deleteEvents(through: events[1].number)
        let pruned = try await server.openFeed(token: token, lastEventId: String(events[0].number - 1))
        let prunedReset = try await pruned.nextEvent()
        let next = try server.createJobs(1, as: ana)

        for reset in [staleReset, unknownReset, prunedReset] {
            #expect(reset.event == "reset")
            #expect(reset.json["reason"]?.stringValue?.isEmpty == false)
            #expect(reset.number >= events[1].number, "the reset carries the current position to resume from")
        }
        #expect(staleReset.json["reason"]?.stringValue?.contains("replay window") == true)
        #expect(try await stale.nextEvent().subject == next[0], "live events follow the reset")
        #expect(try await unknown.nextEvent().subject == next[0])
    }

    @Test("An idle feed gets a comment heartbeat at the configured interval")
    func heartbeat() async throws {
        let server = try await TestServer.start(configure: { $0.liveEvents.heartbeat = .milliseconds(200) })
        defer { server.stop() }
        let (ana, token) = try await server.makeDevice()
        let feed = try await server.openFeed(token: token)

        let started = Date()
        #expect(try await feed.next(timeout: 3) == .comment("ping"))
        let job = try server.createJobs(1, as: ana)[0]
        #expect(try await feed.nextEvent().subject == job)
        #expect(try await feed.next(timeout: 3) == .comment("ping"))
        #expect(Date().timeIntervalSince(started) < 3)
    }

    @Test("A feed without a valid bearer token is 401")
    func requiresToken() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let feed = try EventStreamConnection(port: server.application.port, headers: [:])
        #expect(try await feed.open() == 401)
    }
}
