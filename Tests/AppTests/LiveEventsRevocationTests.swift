import App
import AppTesting
import Foundation
import Storage
import SyncAPI
import SyncEngine
import Testing

/// An open live feed lasts only as long as the credential it was opened with.
@Suite("Live feeds end with their credential", .serialized)
struct LiveEventsRevocationTests {
    @Test("Revoking a device's token or suspending its user closes that device's open feed, and no other")
    func deviceFeeds() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let (_, anaToken) = try await server.makeDevice(team: "north")
        let (ben, benToken) = try await server.makeDevice(team: "south")
        let (cleo, cleoToken) = try await server.makeDevice(team: "east")
        let anaFeed = try await server.openFeed(token: anaToken)
        let benFeed = try await server.openFeed(token: benToken)
        let cleoFeed = try await server.openFeed(token: cleoToken)

        #expect(try server.core.accounts.revoke(token: anaToken))
        #expect(try await anaFeed.waitForEnd())
        _ = try server.core.accounts.setSuspended(username: ben.username, true)
        #expect(try await benFeed.waitForEnd())

        let job = try server.createJobs(1, as: cleo)[0]
        #expect(try await cleoFeed.events(until: { $0.subject == job }).map(\.subject) == [job], "the others keep streaming")
        let reopened = try EventStreamConnection(port: server.application.port, token: anaToken)
        #expect(try await reopened.open() == 401)
    }

    @Test("Signing out closes the back-office live feed opened in that session")
    func backOfficeFeed() async throws {
        let server = try WebTestServer { $0.liveEvents.heartbeat = .milliseconds(200) }
        defer { server.stop() }
        let browser = try server.signedIn()
        let session = try #require(browser.cookies["fieldsync_session"])
        let feed = try EventStreamConnection(port: server.app.port, path: "/admin/events", headers: ["Cookie": "fieldsync_session=\(session)"])
        #expect(try await feed.open() == 200)

        #expect(try browser.submit("/logout", from: "/admin").status == 303)
        #expect(try await feed.waitForEnd(), "the next heartbeat finds the session gone")
    }
}
