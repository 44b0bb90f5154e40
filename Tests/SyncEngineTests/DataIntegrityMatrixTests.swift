import Foundation
import SyncEngine
import SyncProtocol
import Testing

/// The data-integrity matrix. (c) is in RecordStateTests, (h) and (j) in OrderingTests.
@Suite("Data-integrity matrix")
struct DataIntegrityMatrixTests {
    @Test("(a) a replayed push gets the same serverSeqs and changes nothing")
    func replayedPush() throws {
        var h = try Harness()
        let ops = [h.ops.op(People.ana, .create, "jobs", "j-1", ["title": "t"]), h.ops.op(People.ana, .update, "jobs", "j-1", ["notes": "n"], base: 0)]
        let first = try h.push(ops, by: People.ana)
        let before = h.state
        let again = try h.push(ops, by: People.ana)
        #expect(again.map(\.serverSeq) == first.map(\.serverSeq) && again.allSatisfy { $0.replayed == true })
        let after = h.state
        #expect(after.records == before.records && after.changes == before.changes && after.sequence == before.sequence)
    }

    @Test("(b) a part consumption re-pushed after an app relaunch is applied once")
    func partConsumedOnce() throws {
        var h = try Harness()
        let usage = h.ops.op(People.ana, .create, "part_usage", "p-1", ["job_id": "j-1", "sku": "VALVE-22", "qty": 2])
        let first = try h.push1(usage, by: People.ana)
        // The response was lost; after relaunch the app re-sends its whole queue plus new work.
        let next = h.ops.op(People.ana, .create, "part_usage", "p-2", ["job_id": "j-1", "sku": "VALVE-22", "qty": 1])
        let relaunch = try h.push([usage, next], by: People.ana)
        #expect(relaunch[0].replayed == true && relaunch[0].serverSeq == first.serverSeq)
        #expect(relaunch[1].status == .applied)
        let state = h.state
        let consumed = state.records.values.filter { $0.collection == "part_usage" && $0.payload["sku"] == "VALVE-22" }
        #expect(consumed.compactMap { $0.payload["qty"]?.intValue }.reduce(0, +) == 3)
        #expect(state.changes.filter { $0.recordId == "p-1" }.count == 1)
    }

    @Test("(d) two devices set jobs.status from one base: same final value in both push orders, the loser sees both values")
    func statusEitherOrder() throws {
        var finals: [JSONValue?] = []
        for anaFirst in [true, false] {
            var h = try Harness()
            let base = try #require(try h.push1(h.ops.op(People.dora, .create, "jobs", "j-1", ["title": "t", "status": "in_progress", "teamId": "t-1"]), by: People.dora).serverSeq)
            let hold = h.ops.op(People.ana, .update, "jobs", "j-1", ["status": "on_hold"], base: base, old: ["status": "in_progress"])
            let done = h.ops.op(People.ben, .update, "jobs", "j-1", ["status": "complete"], base: base, old: ["status": "in_progress"])
            if anaFirst {
                #expect(try h.push1(hold, by: People.ana).status == .applied)
                let loser = try h.push1(done, by: People.ben)
                #expect(loser.code == .fieldConflict)
                let payload = try #require(loser.conflicts?.first)
                #expect(payload.clientNew == "complete" && payload.serverCurrent == "on_hold" && payload.winner == .server)
            } else {
                #expect(try h.push1(done, by: People.ben).status == .applied)
                let winner = try h.push1(hold, by: People.ana)
                #expect(winner.status == .applied && winner.conflicts?.first?.serverCurrent == "complete" && winner.conflicts?.first?.winner == .client)
            }
            let job = try #require(h.record("jobs", "j-1"))
            #expect(job.conflictId == nil)
            #expect(h.state.conflicts.isEmpty)
            finals.append(job.payload["status"])
        }
        #expect(finals == ["on_hold", "on_hold"])
    }

    @Test("(e) labor_minutes and notes changed from the same base both survive without conflict")
    func disjointFieldsMerge() throws {
        var h = try Harness()
        let base = try #require(try h.push1(h.ops.op(People.ana, .create, "jobs", "j-1", ["title": "t", "labor_minutes": 90]), by: People.ana).serverSeq)
        let labor = try h.push1(h.ops.op(People.ana, .update, "jobs", "j-1", ["labor_minutes": 135], base: base), by: People.ana)
        let notes = try h.push1(h.ops.op(People.ben, .update, "jobs", "j-1", ["notes": "valve replaced"], base: base), by: People.ben)
        #expect(labor.status == .applied && notes.status == .applied && notes.conflicts == nil)
        let job = try #require(h.record("jobs", "j-1"))
        #expect(job.payload["labor_minutes"] == 135 && job.payload["notes"] == "valve replaced")
        #expect(job.fieldMeta["labor_minutes"]?.deviceId == "dev-ana" && job.fieldMeta["notes"]?.deviceId == "dev-ben")
    }

    @Test("(f) two batches of one device arriving reversed end in the same state as in order")
    func reversedBatches() throws {
        var states: [[RecordKey: StoredRecord]] = []
        for reversed in [false, true] {
            var h = try Harness()
            let batch1 = [h.ops.op(People.ana, .create, "jobs", "j-1", ["title": "t", "status": "in_progress"]),
                          h.ops.op(People.ana, .update, "jobs", "j-1", ["notes": "one"], base: 0)]
            let batch2 = [h.ops.op(People.ana, .update, "jobs", "j-1", ["labor_minutes": 30, "notes": "two"], base: 0),
                          h.ops.op(People.ana, .update, "jobs", "j-1", ["status": "complete"], base: 0)]
            if reversed {
                let early = try h.push(batch2, by: People.ana)
                #expect(early.allSatisfy { $0.code == .awaitingPredecessor })
                let late = try h.push(batch1, by: People.ana)
                #expect(late.allSatisfy { $0.status == .applied })
                let replays = try h.push(batch2, by: People.ana)
                #expect(replays.allSatisfy { $0.status == .applied && $0.replayed == true })
            } else {
                try h.push(batch1, by: People.ana)
                try h.push(batch2, by: People.ana)
            }
            states.append(h.state.records)
        }
        #expect(states[0] == states[1])
        #expect(states[0].values.first?.payload == ["title": "t", "status": "complete", "notes": "two", "labor_minutes": 30, "assigneeId": "u-ana", "teamId": "t-1"])
    }
}
