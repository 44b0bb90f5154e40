import Foundation
import SyncEngine
import SyncEngineTesting
import SyncProtocol
import Testing

@Suite("Push rule 9 atomicity")
struct AtomicityTests {
    @Test("Rule 9: a database error in one op does not undo the others; the failed op gets retry and stores nothing")
    func oneOpFails() throws {
        var h = try Harness()
        let a = h.ops.op(People.ana, .create, "jobs", "j-a", ["title": "a"])
        let b = h.ops.op(People.ana, .create, "jobs", "j-b", ["title": "b"])
        let c = h.ops.op(People.ana, .create, "jobs", "j-c", ["title": "c"])
        h.store.failWrites { $0.opIds.contains(b.opId) && $0.records.contains { $0.recordId == "j-b" } }
        let results = try h.push([a, b, c], by: People.ana)
        #expect(results[0].status == .applied)
        #expect(results[1].status == .retry && results[1].code == .temporarilyUnavailable)
        // c arrived but b did not: rule 2 holds c until b is retried.
        #expect(results[2].code == .awaitingPredecessor && results[2].missing == .clientSeqs([2]))
        #expect(h.record("jobs", "j-a") != nil)
        #expect(h.record("jobs", "j-b") == nil)
        #expect(h.state.opLog["dev-ana"]?[b.opId] == nil)
        h.store.failWrites(when: nil)
        let retried = try h.push([b, c], by: People.ana)
        #expect(retried[0].status == .applied && retried[1].status == .applied && retried[1].replayed == true)
        #expect(h.record("jobs", "j-c") != nil)
    }

    @Test("Rule 9: a failed transaction leaves no trace (no records, op log, sequence numbers or events)")
    func rollback() throws {
        var h = try Harness()
        h.store.failWrites { _ in true }
        let results = try h.push([h.ops.op(People.ana, .create, "jobs", "j-1", ["title": "t"])], by: People.ana)
        #expect(results[0].status == .retry)
        let state = h.state
        #expect(state.records.isEmpty && state.opLog.isEmpty && state.sequence == 0 && state.events.isEmpty && state.highWater.isEmpty)
    }

    @Test("Rule 9 keeps rule 3: in the one-op-at-a-time fallback later ops of a failed entity are still PREDECESSOR_FAILED")
    func fallbackKeepsEntityOrder() throws {
        var h = try Harness()
        let missing = h.ops.op(People.ana, .update, "jobs", "j-404", ["notes": "a"], base: 1)
        let blocked = h.ops.op(People.ana, .update, "jobs", "j-404", ["notes": "b"], base: 1)
        let poisoned = h.ops.op(People.ana, .create, "jobs", "j-x", ["title": "x"])
        h.store.failWrites { $0.records.contains { $0.recordId == "j-x" } }
        let results = try h.push([missing, blocked, poisoned], by: People.ana)
        #expect(results.map(\.code) == [.recordNotFound, .predecessorFailed, .temporarilyUnavailable])
        #expect(results[1].details?["blockedBy"] == .string(missing.opId))
    }

    @Test("Concurrent pushes of different devices are serialized by the store and all apply")
    func concurrentPushes() throws {
        var h = try Harness()
        let base = try #require(try h.push1(h.ops.op(People.ana, .create, "jobs", "j-1", ["title": "t"]), by: People.ana).serverSeq)
        let anaOps = (0..<10).map { h.ops.op(People.ana, .update, "jobs", "j-1", ["labor_minutes": .int(Int64($0))], base: base) }
        let benOps = (0..<10).map { h.ops.op(People.ben, .update, "jobs", "j-1", ["notes": .string("n\($0)")], base: base) }
        let harness = h
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            try? pushInTurn(index == 0 ? anaOps : benOps, by: index == 0 ? People.ana : People.ben, harness)
        }
        let job = try #require(h.record("jobs", "j-1"))
        #expect(job.payload["labor_minutes"] == 9 && job.payload["notes"] == "n9")
        let seqs = h.state.changes.map(\.seq)
        #expect(seqs == Array(1...21))
    }

    private func pushInTurn(_ ops: [PushOp], by principal: Principal, _ h: Harness) throws {
        for op in ops {
            #expect(try h.push1(op, by: principal).status == .applied)
        }
    }
}
