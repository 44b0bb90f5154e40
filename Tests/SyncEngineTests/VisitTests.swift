import Foundation
import SyncEngine
import SyncEngineTesting
import SyncProtocol
import Testing

@Suite("A push records its sync call with its own writes")
struct VisitTests {
    private func push(_ ops: [PushOp], by principal: Principal, _ h: Harness) throws -> PushOutcome {
        try h.service.push(
            PushRequest(deviceId: principal.deviceId, schemaVersion: 3, ops: ops), by: principal,
            visit: SyncVisit(principal: principal, appVersion: "2.3.0"))
    }

    @Test("the visit is written with the changes, and newServerSeq is the push's highest number")
    func recordedWithChanges() throws {
        var h = try Harness()
        let outcome = try push(
            [h.ops.op(People.ana, .create, "jobs", "j-1", ["title": "a"]), h.ops.op(People.ana, .create, "jobs", "j-2", ["title": "b"])],
            by: People.ana, h)
        #expect(outcome.newServerSeq == 2)
        #expect(h.state.visits == [SyncVisit(principal: People.ana, appVersion: "2.3.0")])
    }

    @Test("a push that changes nothing still records its visit and answers the latest committed number")
    func recordedWithoutChanges() throws {
        var h = try Harness()
        try h.push1(h.ops.op(People.ana, .create, "jobs", "j-1", ["title": "a"]), by: People.ana)
        let outcome = try push([h.ops.op(People.ben, .update, "jobs", "j-404", ["notes": "x"], base: 1)], by: People.ben, h)
        #expect(outcome.results[0].code == .recordNotFound)
        #expect(outcome.newServerSeq == 1)
        #expect(h.state.sequence == 1)
        #expect(h.state.visits.map(\.deviceId) == [People.ben.deviceId])
    }

    @Test("a write set records the visit only when nothing else is in it, so a replayed push's commit need not wait for the flush")
    func visitOnly() {
        var writes = WriteSet()
        #expect(!writes.recordsVisitOnly)
        writes.visit = SyncVisit(principal: People.ana, appVersion: "2.3.0")
        #expect(writes.recordsVisitOnly)
        writes.deviceHighWater = DeviceHighWater(deviceId: People.ana.deviceId, highWater: 3)
        #expect(!writes.recordsVisitOnly)
    }

    @Test("in the one-op-at-a-time fallback the first op that commits records the visit, once")
    func fallbackRecordsOnce() throws {
        var h = try Harness()
        let fine = [h.ops.op(People.ana, .create, "jobs", "j-1", ["title": "a"]), h.ops.op(People.ana, .create, "jobs", "j-2", ["title": "b"])]
        let poisoned = h.ops.op(People.ana, .create, "jobs", "j-x", ["title": "x"])
        h.store.failWrites { $0.records.contains { $0.recordId == "j-x" } }
        let outcome = try push(fine + [poisoned], by: People.ana, h)
        #expect(outcome.results.map(\.status) == [.applied, .applied, .retry])
        #expect(outcome.newServerSeq == 2)
        #expect(h.state.visits.count == 1)
    }

    @Test("when no op commits, the outcome says the visit is still to be recorded")
    func fallbackRecordsNone() throws {
        var h = try Harness()
        h.store.failWrites { _ in true }
        let outcome = try push([h.ops.op(People.ana, .create, "jobs", "j-x", ["title": "x"])], by: People.ana, h)
        #expect(outcome.results[0].status == .retry)
        #expect(outcome.newServerSeq == nil)
        #expect(h.state.visits.isEmpty)
    }

    @Test("re-attempting deferred ops records no visit")
    func releaseRecordsNone() throws {
        let h = try Harness()
        _ = try h.service.releaseDeferred(deviceId: People.ana.deviceId)
        #expect(h.state.visits.isEmpty)
    }
}
