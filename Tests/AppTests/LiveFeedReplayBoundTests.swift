import App
import AppTesting
import Foundation
import SyncAPI
import SyncProtocol
import Testing

/// A resume replays a bounded backlog: past the byte cap the client gets one reset instead.
@Suite("Live feed replay bound", .serialized)
struct LiveFeedReplayBoundTests {
    @Test("Resuming past more event bytes than the replay cap gives one reset, then live events")
    func replayBytesBounded() async throws {
        let server = try await TestServer.start(configure: { $0.liveEvents.replayByteLimit = 100 << 10 })
        defer { server.stop() }
        let (ana, token) = try await server.makeDevice()
        let feed = try await server.openFeed(token: token)
        let marker = try server.createJobs(1, as: ana)[0]
        let seen = try await feed.events(until: { $0.subject == marker })
        let missed = try server.appendLargeEvents(3, for: ana, prefix: "big")
        // Once a connected feed has them live, they are behind the hub's head: a resume must replay them.
        #expect(try await feed.events(until: { $0.subject == missed[2] }).count == 3)

        let small = try await server.openFeed(token: token, lastEventId: seen.last?.id)
        let reset = try await small.nextEvent()
        #expect(reset.event == "reset")
        #expect(reset.json["reason"]?.stringValue?.contains("bytes") == true)
        let next = try server.createJobs(1, as: ana)
        #expect(try await small.nextEvent().subject == next[0], "live events follow the reset")
    }
}
