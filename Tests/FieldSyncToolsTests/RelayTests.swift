import App
import AppTesting
import FieldSyncClient
import Foundation
import Synchronization
import Testing

@testable import FieldSyncTools

/// The link-shaping relay, with real sockets between real clients and a real server.
@Suite("Shaped relay")
struct RelayTests {
    @Test("A download through a 200 kbit/s relay takes at least its bytes over the rate, and arrives whole")
    func shapesBandwidth() async throws {
        let server = try await TestServer.start { $0.databasePoolSize = 2 }
        defer { server.stop() }
        let rate = 200_000.0
        let relay = try TCPRelay(targetPort: server.application.port, shape: LinkShape(upBitsPerSecond: rate, downBitsPerSecond: rate))
        relay.start()
        defer { relay.stop() }
        let direct = try await server.client.get("/v1/openapi.json")

        let start = ContinuousClock.now
        let shaped = try await TestClient(baseURL: URL(string: "http://127.0.0.1:\(relay.port)/")!).get("/v1/openapi.json")
        let elapsed = ContinuousClock.now - start

        #expect(shaped.status == 200 && shaped.body == direct.body)
        let down = relay.totals.bytesDown
        #expect(down > Int64(direct.body.count))
        // A lower bound only: the relay must not let bytes through faster than the link.
        #expect(elapsed >= .seconds(Double(down) * 8 / rate * 0.95), "\(down) bytes in \(elapsed)")
    }

    @Test("Connections through the relay share its rate: bytes booked at the same moment leave one after another")
    func linkIsShared() {
        let start = ContinuousClock.now
        let link = LinkClock(bitsPerSecond: 8_000, now: start)

        let first = link.book(500, now: start)
        let second = link.book(500, now: start)
        let afterIdle = link.book(500, now: start + .seconds(2))

        #expect(first == start + .milliseconds(500))
        #expect(second == start + .seconds(1))
        #expect(afterIdle == start + .milliseconds(2_500))
        #expect(LinkClock(bitsPerSecond: nil).book(1_000_000, now: start) == start)
    }

    @Test("Connections cut at random mid-transfer: the day still arrives exactly once and no photo restarts from zero")
    func cutsAndResumes() async throws {
        let server = try await FleetSimulationTests.server()
        defer { server.stop() }
        var day = FleetSimulationTests.day
        // Three chunks of 256 KiB per photo, so that cuts fall between and inside chunks.
        day.photoBytes = 700_000
        let relay = Mutex<TCPRelay?>(nil)
        let shape = LinkShape(meanBytesBeforeCut: 250_000)

        let report = try await Simulation.run(
            on: FleetHost(core: server.core, baseURL: server.baseURL), devices: 1, concurrency: 1, day: day,
            route: { url in
                let started = try TCPRelay(targetPort: url.port!, shape: shape)
                started.start()
                relay.withLock { $0 = started }
                return URL(string: "http://127.0.0.1:\(started.port)/")!
            }, transport: SocketTransport(), log: { _ in })
        let totals = try #require(relay.withLock { $0 }).totals
        relay.withLock { $0?.stop() }

        #expect(totals.cuts > 0, "\(totals)")
        #expect(report.outcome.network.failedRequests > 0)
        #expect(report.outcome.failures.isEmpty && report.verdict.isExact, "\(report.table)")
        #expect(report.outcome.network.photosRestarted == 0 && report.outcome.network.chunksResent == 0, "\(report.table)")
    }
}
