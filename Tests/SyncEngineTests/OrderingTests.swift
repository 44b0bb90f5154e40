import Foundation
import SyncEngine
import SyncEngineTesting
import SyncProtocol
import Testing

@Suite("Push rules 1, 2, 3 and 6")
struct OrderingTests {
    @Test("Rule 1: a replayed op gets its stored result with replayed: true and the same serverSeq; nothing changes")
    func replay() throws {
        var h = try Harness()
        let op = h.ops.op(People.ana, .create, "jobs", "j-1", ["title": "Boiler"])
        let first = try h.push1(op, by: People.ana)
        let before = h.state
        let again = try h.push1(op, by: People.ana)
        let after = h.state
        #expect(again.replayed == true && again.serverSeq == first.serverSeq && again.status == .applied)
        #expect(after.sequence == before.sequence && after.changes == before.changes && after.events == before.events)
        #expect(after.records == before.records)
    }

    @Test("Rule 1: a stored rejection is replayed without re-evaluation")
    func replayRejection() throws {
        var h = try Harness()
        let update = h.ops.op(People.ana, .update, "jobs", "j-1", ["notes": "x"], base: 0)
        #expect(try h.push1(update, by: People.ana).code == .recordNotFound)
        try h.push1(h.ops.op(People.ben, .create, "jobs", "j-1", ["title": "t"]), by: People.ben)
        let replay = try h.push1(update, by: People.ana)
        #expect(replay.code == .recordNotFound && replay.replayed == true)
    }

    @Test("Rule 1: the same opId with different content is IDEMPOTENCY_KEY_REUSED (matrix j)")
    func reused() throws {
        var h = try Harness()
        let op = h.ops.op(People.ana, .create, "jobs", "j-1", ["title": "Boiler"])
        try h.push1(op, by: People.ana)
        var changed = op
        changed.fields = ["title": FieldChange(new: "Furnace")]
        let result = try h.push1(changed, by: People.ana)
        #expect(result.status == .rejected && result.code == .idempotencyKeyReused)
        #expect(h.record("jobs", "j-1")?.payload["title"] == "Boiler")
    }

    @Test("Rule 1: the fingerprint ignores spellings with the same meaning")
    func fingerprintNormalization() throws {
        let h = try Harness()
        let op = PushOp(
            opId: "o", clientSeq: 1, collection: "jobs", recordId: "j", type: .update, occurredAt: "2026-11-03T08:00:00Z",
            fields: ["a": FieldChange(new: 1)], dependsOn: ["x", "y"])
        var same = op
        same.entityKey = "j"
        same.dependsOn = ["y", "x", "x"]
        same.fields = ["a": FieldChange(old: .null, new: 1.0)]
        #expect(h.processor.fingerprint(of: op) == h.processor.fingerprint(of: same))
        var other = op
        other.baseServerSeq = 4
        #expect(h.processor.fingerprint(of: op) != h.processor.fingerprint(of: other))
    }

    @Test("Rule 1: an opId is scoped to its device; another device's identical opId is a different op")
    func opIdPerDevice() throws {
        var h = try Harness()
        try h.push1(h.ops.op(People.ana, .create, "jobs", "j-1", ["title": "a"], opId: "shared"), by: People.ana)
        let ben = try h.push1(h.ops.op(People.ben, .create, "jobs", "j-2", ["title": "b"], opId: "shared"), by: People.ben)
        #expect(ben.status == .applied && ben.replayed == nil && ben.recordId == "j-2")
        #expect(h.record("jobs", "j-2") != nil)
    }

    @Test("Rule 2: ops apply in clientSeq order whatever their order in the request; results keep request order")
    func clientSeqOrder() throws {
        var h = try Harness()
        let create = h.ops.op(People.ana, .create, "jobs", "j-1", ["title": "t"])
        let update = h.ops.op(People.ana, .update, "jobs", "j-1", ["notes": "n"], base: 0)
        let results = try h.push([update, create], by: People.ana)
        #expect(results.map(\.opId) == [update.opId, create.opId])
        #expect(results.allSatisfy { $0.status == .applied })
        #expect(try #require(results[0].serverSeq) > #require(results[1].serverSeq))
    }

    @Test("Rule 2: a gap defers later ops as AWAITING_PREDECESSOR with the missing seqs; they apply when it fills")
    func gap() throws {
        var h = try Harness()
        let first = h.ops.op(People.ana, .create, "jobs", "j-1", ["title": "t"])
        let second = h.ops.op(People.ana, .update, "jobs", "j-1", ["notes": "2"], base: 0)
        let third = h.ops.op(People.ana, .create, "jobs", "j-2", ["title": "u"])
        let fifth = h.ops.op(People.ana, .create, "jobs", "j-3", ["title": "v"], seq: 5)
        let early = try h.push([first, third, fifth], by: People.ana)
        #expect(early[0].status == .applied)
        #expect(early[1].status == .deferred && early[1].code == .awaitingPredecessor && early[1].missing == .clientSeqs([2]))
        #expect(early[2].missing == .clientSeqs([2, 4]))
        #expect(h.record("jobs", "j-2") == nil)
        #expect(h.state.highWater["dev-ana"] == 1)
        let filled = try h.push1(second, by: People.ana)
        #expect(filled.status == .applied)
        #expect(h.record("jobs", "j-2") != nil)
        #expect(h.state.highWater["dev-ana"] == 3)
        let replay = try h.push1(third, by: People.ana)
        #expect(replay.status == .applied && replay.replayed == true)
        let stillWaiting = try h.push1(fifth, by: People.ana)
        #expect(stillWaiting.status == .deferred && stillWaiting.missing == .clientSeqs([4]) && stillWaiting.replayed == true)
    }

    @Test("Rule 2: the missing seqs listed are capped by configuration")
    func missingCapped() throws {
        var h = try Harness(configuration: SyncConfiguration(maxMissingListed: 3))
        let far = h.ops.op(People.ana, .create, "jobs", "j-1", ["title": "t"], seq: 1_000_000)
        #expect(try h.push1(far, by: People.ana).missing == .clientSeqs([1, 2, 3]))
    }

    @Test("Rule 2: a new opId at or below the high-water mark is CLIENT_SEQ_REGRESSED")
    func regressed() throws {
        var h = try Harness()
        try h.push1(h.ops.op(People.ana, .create, "jobs", "j-1", ["title": "t"]), by: People.ana)
        let result = try h.push1(h.ops.op(People.ana, .create, "jobs", "j-2", ["title": "u"], seq: 1), by: People.ana)
        #expect(result.status == .rejected && result.code == .clientSeqRegressed)
        #expect(h.record("jobs", "j-2") == nil)
    }

    @Test("Rule 3: after a failed op, later ops of its entity are PREDECESSOR_FAILED; other entities apply (matrix h)")
    func predecessorFailed() throws {
        var h = try Harness()
        let missing = h.ops.op(People.ana, .update, "jobs", "j-404", ["notes": "a"], base: 1)
        let blocked = h.ops.op(People.ana, .update, "jobs", "j-404", ["notes": "b"], base: 1)
        let other = h.ops.op(People.ana, .create, "jobs", "j-2", ["title": "fine"])
        let results = try h.push([missing, blocked, other], by: People.ana)
        #expect(results[0].code == .recordNotFound)
        #expect(results[1].status == .conflict && results[1].code == .predecessorFailed && results[1].details?["blockedBy"] == .string(missing.opId))
        #expect(results[2].status == .applied)
        let replay = try h.push1(blocked, by: People.ana)
        #expect(replay.code == .predecessorFailed && replay.replayed == true)
    }

    @Test("Rule 6: an op whose attachments are not finalized is DEPENDENCY_PENDING and applies once they are")
    func dependencyPending() throws {
        var h = try Harness()
        let op = h.ops.op(
            People.ana, .create, "part_usage", "p-1", ["job_id": "j-1", "sku": "S", "qty": 2, "photo": "att-1"], dependsOn: ["att-1", "att-2"])
        h.store.finalizeAttachment("att-2", of: RecordKey(collection: "part_usage", recordId: "p-1"))
        let result = try h.push1(op, by: People.ana)
        #expect(result.status == .deferred && result.code == .dependencyPending && result.missing == .attachments(["att-1"]))
        #expect(h.record("part_usage", "p-1") == nil)
        let held = try #require(h.state.opLog["dev-ana"]?[op.opId])
        #expect(held.status == .deferred && held.pending?.op == op && held.awaitedAttachments == ["att-1"])
        h.store.finalizeAttachment("att-1", of: RecordKey(collection: "part_usage", recordId: "p-1"))
        let released = try h.service.releaseDeferred(deviceId: "dev-ana")
        #expect(h.state.opLog["dev-ana"]?[op.opId]?.pending == nil)
        #expect(released.settled.map(\.status) == [.applied])
        #expect(h.record("part_usage", "p-1")?.payload["photo"] == "att-1")
        let replay = try h.push1(op, by: People.ana)
        #expect(replay.status == .applied && replay.replayed == true && replay.serverSeq == released.settled[0].serverSeq)
    }

    @Test("Rule 2 and 6: a dependency-deferred op counts as received and holds back only its own entity, across batches")
    func deferredHoldsEntity() throws {
        var h = try Harness()
        let usage = h.ops.op(People.ana, .create, "part_usage", "p-1", ["job_id": "j", "sku": "S", "qty": 1], dependsOn: ["att-1"])
        let otherEntity = h.ops.op(People.ana, .create, "jobs", "j-1", ["title": "t"])
        let first = try h.push([usage, otherEntity], by: People.ana)
        #expect(first[0].status == .deferred && first[1].status == .applied)
        let sameEntity = h.ops.op(People.ana, .update, "part_usage", "p-1", ["qty": 3], base: 0)
        let later = try h.push1(sameEntity, by: People.ana)
        #expect(later.status == .deferred && later.code == .dependencyPending && later.details?["blockedBy"] == .string(usage.opId))
        #expect(later.missing == .attachments(["att-1"]))
        #expect(h.state.highWater["dev-ana"] == 3)
        h.store.finalizeAttachment("att-1", of: RecordKey(collection: "part_usage", recordId: "p-1"))
        let release = try h.service.releaseDeferred(deviceId: "dev-ana")
        #expect(release.settled.map(\.opId) == [usage.opId, sameEntity.opId])
        #expect(release.settled.allSatisfy { $0.status == .applied })
        #expect(h.record("part_usage", "p-1")?.payload["qty"] == 3)
    }

    @Test("Rule 6: a held op is re-attempted with the next push, in clientSeq order before the new ops")
    func heldOpsRunWithNextPush() throws {
        var h = try Harness()
        let usage = h.ops.op(People.ana, .create, "part_usage", "p-1", ["job_id": "j", "sku": "S", "qty": 1], dependsOn: ["att-1"])
        try h.push1(usage, by: People.ana)
        h.store.finalizeAttachment("att-1", of: RecordKey(collection: "part_usage", recordId: "p-1"))
        let update = h.ops.op(People.ana, .update, "part_usage", "p-1", ["qty": 4], base: 0)
        let outcome = try h.service.push(PushRequest(deviceId: "dev-ana", schemaVersion: 3, ops: [update]), by: People.ana)
        #expect(outcome.results[0].status == .applied)
        #expect(outcome.settled.map(\.opId) == [usage.opId])
        #expect(h.record("part_usage", "p-1")?.payload["qty"] == 4)
    }
}
