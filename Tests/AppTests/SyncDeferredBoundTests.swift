import App
import AppTesting
import Foundation
import SyncProtocol
import Testing

/// A device cannot make the server hold an unbounded number of deferred ops.
@Suite("Deferred ops per device are bounded")
struct SyncDeferredBoundTests {
    @Test(
        "A push past the bound gets 429 TOO_MANY_DEFERRED and stores nothing; filling the gap releases the held ops, and the refused op then applies")
    func boundOnHeldOps() async throws {
        let server = try await TestServer.start { $0.maxDeferredOpsPerDevice = 3 }
        defer { server.stop() }
        let ana = try await server.device()
        let job = { (seq: Int64) in ana.op(.create, "jobs", "job-\(seq)", ["title": .string("job \(seq)")], seq: seq) }

        let heldOps = [job(3), job(4), job(5)]
        let held = try await ana.push(heldOps)
        #expect(held.allSatisfy { $0.status == .deferred && $0.code == .awaitingPredecessor })

        let extra = job(6)
        let refused = try await ana.send([extra])
        #expect(refused.status == 429)
        #expect(refused.errorCode == "TOO_MANY_DEFERRED")
        #expect(refused.header("Retry-After") == "60")
        let details = try refused.errorEnvelope().error.details
        #expect(details?["limit"] == .int(3) && details?["deferred"] == .int(4))

        #expect(try await ana.push([job(1), job(2)]).allSatisfy { $0.status == .applied })
        #expect(try await ana.push(heldOps).allSatisfy { $0.status == .applied }, "the held ops applied once the gap was filled")

        let later = try await ana.push1(extra)
        #expect(later.status == .applied && later.replayed != true, "nothing of the refused op was stored: \(later)")
    }
}
