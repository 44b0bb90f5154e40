import App
import AppTesting
import Foundation
import SyncAPI
import SyncProtocol
import Testing

/// The caps on open live feeds: per user and per server, answered 429 `TOO_MANY_STREAMS`.
@Suite("Live feed caps", .serialized)
struct LiveFeedCapTests {
    @Test("A user past the per-user cap and anyone past the server cap get 429 with Retry-After, and a closed feed frees its place")
    func streamCaps() async throws {
        let server = try await TestServer.start(configure: {
            $0.liveEvents.maxStreamsPerUser = 2
            $0.liveEvents.maxStreams = 3
            $0.liveEvents.heartbeat = .milliseconds(200)
        })
        defer { server.stop() }
        let (_, ana) = try await server.makeDevice(team: "north")
        let (_, ben) = try await server.makeDevice(team: "north")
        let (_, carl) = try await server.makeDevice(team: "south")
        var anaFeeds = [try await server.openFeed(token: ana), try await server.openFeed(token: ana)]

        let perUser = try await server.client.get("/v1/events", token: ana)
        #expect(perUser.status == 429)
        #expect(perUser.errorCode == ErrorCode.tooManyStreams.rawValue)
        #expect(try perUser.errorEnvelope().error.details?["scope"] == "user")
        #expect(perUser.header("Retry-After") == "30")

        let benFeed = try await server.openFeed(token: ben)
        let perServer = try await server.client.get("/v1/events", token: carl)
        #expect(perServer.status == 429)
        #expect(try perServer.errorEnvelope().error.details?["scope"] == "server")
        #expect(try perServer.errorEnvelope().error.details?["limit"] == 3)
        #expect(perServer.header("Retry-After") != nil)

        // A client that goes away frees its place once the server notices (at the next heartbeat at the latest).
        anaFeeds.removeLast()
        let freed = await eventually { server.liveFeed.hub.subscriberCount == 2 }
        #expect(freed)
        let carlFeed = try await server.openFeed(token: carl)
        #expect(server.liveFeed.hub.subscriberCount == 3)
        _ = (anaFeeds, benFeed, carlFeed)
    }
}
