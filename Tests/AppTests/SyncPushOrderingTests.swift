import AppTesting
import Foundation
import Postgres
import SyncProtocol
import Testing

/// PROTOCOL.md "Push", rules 1 (idempotency), 2 (order per device), 3 (order per entity) and
/// 6 (dependencies), over HTTP against PostgreSQL.
@Suite("Push rules 1, 2, 3 and 6 over HTTP")
struct SyncPushOrderingTests {
    @Test("Rule 1: stored rejected and conflict results are replayed as stored, never re-evaluated")
    func storedFailuresReplay() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device()
        let early = ana.update("jobs", "job-1", ["notes": "too early"], base: 1)
        let create = ana.create("jobs", "job-1", ["title": "Boiler"])
        let twice = ana.create("jobs", "job-1", ["title": "Boiler again"])
        // One push each: in one batch rule 3 would block the later ops of job-1.
        let first = try await ana.pushEach([early, create, twice])
        #expect(first.map(\.code) == [.recordNotFound, nil, .recordExists])

        let counts = try server.syncTableCounts()
        // job-1 exists now: a re-evaluation would apply the update; the stored result answers instead.
        let replay = try await ana.push([early, twice])

        #expect(replay[0].status == .rejected && replay[0].code == .recordNotFound && replay[0].replayed == true)
        #expect(replay[1].status == .conflict && replay[1].code == .recordExists && replay[1].replayed == true)
        #expect(try server.syncTableCounts() == counts)
        #expect(try server.storedRecord("jobs", "job-1")?.payload["notes"] == nil)
    }

    @Test("Rule 1: an opId is scoped to its device; the same opId from another device is a different op")
    func opIdScopedToDevice() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device()
        let ben = try await server.device()
        let at = RFC3339.string(from: Date().addingTimeInterval(-60))
        let anaOp = ana.op(.create, "jobs", "job-1", ["title": "Boiler"], opId: "op-shared", occurredAt: at)
        let anaResult = try await ana.push1(anaOp)
        #expect(anaResult.status == .applied)

        // The very same op (same id, seq and body) from another device is that device's own new op.
        let benOp = ben.op(.create, "jobs", "job-1", ["title": "Boiler"], opId: "op-shared", occurredAt: at)
        #expect(benOp == anaOp)
        let benResult = try await ben.push1(benOp)

        #expect(benResult.status == .conflict && benResult.code == .recordExists && benResult.replayed == nil)
        #expect(benResult.serverSeq == nil)
        // And ana's device still gets its own stored result.
        let anaReplay = try await ana.push1(anaOp)
        #expect(anaReplay.status == .applied && anaReplay.replayed == true && anaReplay.serverSeq == anaResult.serverSeq)
    }

    @Test("Rule 2: an op behind a gap is deferred AWAITING_PREDECESSOR with missing seqs, and applies when the gap fills")
    func gapFillsAndApplies() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device()
        let create = ana.create("jobs", "job-1", ["title": "Boiler"])
        let notes = ana.update("jobs", "job-1", ["notes": "valve"], base: nil)
        let labor = ana.update("jobs", "job-1", ["labor_minutes": 45], base: nil)

        let third = try await ana.push1(labor)
        #expect(third.status == .deferred && third.code == .awaitingPredecessor && third.missing == .clientSeqs([1, 2]))
        let second = try await ana.push1(notes)
        #expect(second.code == .awaitingPredecessor && second.missing == .clientSeqs([1]))
        #expect(try server.storedRecord("jobs", "job-1") == nil)

        let first = try await ana.push1(create)
        #expect(first.status == .applied)
        let job = try #require(try server.storedRecord("jobs", "job-1"))
        #expect(job.payload["notes"] == "valve" && job.payload["labor_minutes"] == 45)
        // Re-pushing the formerly deferred ops answers their current state.
        let replays = try await ana.push([notes, labor])
        #expect(replays.allSatisfy { $0.status == .applied && $0.replayed == true && $0.serverSeq != nil })
        #expect(replays[1].serverSeq == job.serverSeq)
        #expect(try server.scalar("SELECT count(*) FROM op_log WHERE status = 'deferred'") == 0)
    }

    @Test("Rule 2: a new opId at or below the applied high-water mark, or on a held seq, is CLIENT_SEQ_REGRESSED")
    func clientSeqRegressed() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device()
        try await ana.push([ana.create("jobs", "job-1", ["title": "Boiler"]), ana.create("jobs", "job-2", ["title": "Pump"])])
        let held = try await ana.push1(ana.op(.create, "jobs", "job-5", ["title": "Later"], seq: 5))
        #expect(held.code == .awaitingPredecessor)
        let counts = try server.syncTableCounts()

        let reused = ana.op(.create, "jobs", "job-3", ["title": "Fan"], seq: 2)
        let onHeld = ana.op(.create, "jobs", "job-4", ["title": "Heater"], seq: 5)
        let results = try await ana.push([reused, onHeld])

        #expect(results.map(\.status) == [.rejected, .rejected])
        #expect(results.map(\.code) == [.clientSeqRegressed, .clientSeqRegressed])
        #expect(try server.storedRecord("jobs", "job-3") == nil && server.storedRecord("jobs", "job-4") == nil)
        #expect(try server.syncTableCounts()["records"] == counts["records"])
        #expect(try server.syncTableCounts()["sequence"] == counts["sequence"])
    }

    @Test("Rule 3 / matrix (h): after a rejected op its entity's later ops are PREDECESSOR_FAILED with blockedBy; others apply")
    func predecessorFailed() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device()
        let bad = ana.update("jobs", "job-404", ["notes": "nobody"], base: 1)
        let after = ana.update("jobs", "job-404", ["labor_minutes": 5], base: 1)
        let other = ana.create("jobs", "job-1", ["title": "Boiler"])
        let afterAgain = ana.op(.create, "jobs", "job-404", ["title": "Now"])
        let otherUpdate = ana.update("jobs", "job-1", ["notes": "fine"], base: nil)

        let results = try await ana.push([bad, after, other, afterAgain, otherUpdate])

        #expect(results[0].status == .rejected && results[0].code == .recordNotFound)
        for blocked in [results[1], results[3]] {
            #expect(blocked.status == .conflict && blocked.code == .predecessorFailed)
            #expect(blocked.details?["blockedBy"] == .string(bad.opId))
        }
        #expect(results[2].status == .applied && results[4].status == .applied)
        #expect(try server.storedRecord("jobs", "job-404") == nil)
        #expect(try server.storedRecord("jobs", "job-1")?.payload["notes"] == "fine")
    }

    @Test("Rule 3: ops with the same entityKey on different records are one entity")
    func entityKeySpansRecords() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device()
        let bad = ana.op(.create, "part_usage", "pu-1", ["job_id": "job-1", "sku": "VALVE"], entityKey: "job-1")
        let next = ana.op(.create, "part_usage", "pu-2", ["job_id": "job-1", "sku": "VALVE", "qty": 1], entityKey: "job-1")

        let results = try await ana.push([bad, next])

        #expect(results[0].code == .validationFailed && results[0].details?["field"] == "qty")
        #expect(results[1].code == .predecessorFailed && results[1].details?["blockedBy"] == .string(bad.opId))
        #expect(try server.storedRecord("part_usage", "pu-2") == nil)
    }

    @Test("Rule 6: an op with dependsOn stays deferred DEPENDENCY_PENDING; a replay answers its current state")
    func dependencyPending() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device()
        let usage = ana.op(
            .create, "part_usage", "pu-1", ["job_id": "job-1", "sku": "VALVE", "qty": 2, "photo": "att-1"], dependsOn: ["att-1"])
        let first = try await ana.push1(usage)
        #expect(first.status == .deferred && first.code == .dependencyPending && first.missing == .attachments(["att-1"]))

        let replay = try await ana.push1(usage)

        #expect(replay.status == .deferred && replay.code == .dependencyPending && replay.replayed == true)
        #expect(replay.missing == .attachments(["att-1"]))
        #expect(try server.storedRecord("part_usage", "pu-1") == nil)
        #expect(try server.scalar("SELECT count(*) FROM op_log WHERE status = 'deferred'") == 1)
    }

    @Test("Rule 2 and 6: a deferred op holds back later ops of its own entity only, not of other entities")
    func deferredHoldsOwnEntityOnly() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device()
        let usage = ana.op(.create, "part_usage", "pu-1", ["job_id": "job-1", "sku": "VALVE", "qty": 2], dependsOn: ["att-1"])
        let usageFix = ana.update("part_usage", "pu-1", ["qty": 3], base: nil)
        let job = ana.create("jobs", "job-1", ["title": "Boiler"])

        let results = try await ana.push([usage, usageFix, job])

        #expect(results[0].code == .dependencyPending)
        #expect(results[1].status == .deferred && results[1].code == .dependencyPending)
        #expect(results[1].details?["blockedBy"] == .string(usage.opId))
        #expect(results[2].status == .applied)
        // The next push of the device is not held back by the deferred seqs either.
        let later = try await ana.push1(ana.update("jobs", "job-1", ["notes": "done"], base: results[2].serverSeq))
        #expect(later.status == .applied)
    }
}
