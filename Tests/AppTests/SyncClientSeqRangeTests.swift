import AppTesting
import Foundation
import SyncProtocol
import Testing

/// PROTOCOL.md "Push": `clientSeq` at most 2^53 and at most 1,000,000 above the device's
/// in-order high-water mark; beyond either the push is refused whole and changes nothing.
@Suite("clientSeq ranges over HTTP")
struct SyncClientSeqRangeTests {
    @Test(
        "clientSeq above 2^53, up to Int64.max, is refused 400 naming the op's clientSeq, nothing stored",
        arguments: [
            Int64(1 << 53) + 1, Int64.max - 1, Int64.max,
        ])
    func refusesBeyondExactRange(seq: Int64) async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device()
        let before = try server.syncTableCounts()

        let response = try await ana.send([ana.create("jobs", "job-0", ["title": "t"]), ana.op(.create, "jobs", "job-1", ["title": "t"], seq: seq)])

        #expect(response.status == 400 && response.errorCode == "VALIDATION_FAILED", "\(response)")
        #expect(try response.errorEnvelope().error.details?["field"] == "ops[1].clientSeq")
        #expect(try server.syncTableCounts() == before)
        // The device is not poisoned: its reports and its next ops still go through.
        #expect(try await ana.syncReports([SyncDevice.report("local-1")])[0]["status"] == "ACCEPTED")
    }

    @Test("A new op more than 1,000,000 above the high-water mark is refused whole; at the window's edge it waits")
    func refusesBeyondWindow() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device()
        #expect(try await ana.push1(ana.op(.create, "jobs", "job-1", ["title": "t"], seq: 1)).status == .applied)
        let before = try server.syncTableCounts()

        let beyond = try await ana.send([ana.op(.create, "jobs", "job-2", ["title": "t"], seq: 1_000_002)])

        #expect(beyond.status == 400 && beyond.errorCode == "VALIDATION_FAILED", "\(beyond)")
        #expect(try beyond.errorEnvelope().error.details?["field"] == "ops[0].clientSeq")
        #expect(try server.syncTableCounts() == before)
        let edge = try await ana.push1(ana.op(.create, "jobs", "job-3", ["title": "t"], seq: 1_000_001))
        #expect(edge.status == .deferred && edge.code == .awaitingPredecessor, "\(edge)")
    }
}
