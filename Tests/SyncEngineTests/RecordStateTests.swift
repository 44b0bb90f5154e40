import Foundation
import SyncEngine
import SyncEngineTesting
import SyncProtocol
import Testing

@Suite("Push rules 7 and 8")
struct RecordStateTests {
    /// Creates `jobs/j-1` from ana's device and returns its serverSeq.
    private func job(
        _ h: inout Harness, _ fields: [String: JSONValue] = ["title": "Boiler", "status": "in_progress", "labor_minutes": 90]
    ) throws -> Int64 {
        try #require(try h.push1(h.ops.op(People.ana, .create, "jobs", "j-1", fields), by: People.ana).serverSeq)
    }

    @Test("Rule 7: an op on a tombstoned record is RECORD_DELETED with the tombstone seq and does not resurrect it (matrix c)")
    func recordDeleted() throws {
        var h = try Harness()
        let base = try job(&h)
        let delete = try h.push1(h.ops.op(People.ben, .delete, "jobs", "j-1", base: base), by: People.ben)
        let tombstone = try #require(delete.serverSeq)
        for type in [OpType.update, .create] {
            let result = try h.push1(h.ops.op(People.ana, type, "jobs", "j-1", ["title": "again"], base: base), by: People.ana)
            #expect(result.status == .rejected && result.code == .recordDeleted && result.tombstoneSeq == tombstone)
        }
        let job = try #require(h.record("jobs", "j-1"))
        #expect(job.tombstoneSeq == tombstone && job.serverSeq == tombstone && job.payload["title"] == "Boiler")
        #expect(job.isDeleted)
    }

    @Test("Rule 7: updating or deleting a record that never existed is RECORD_NOT_FOUND")
    func recordNotFound() throws {
        var h = try Harness()
        #expect(try h.push1(h.ops.op(People.ana, .update, "jobs", "nope", ["notes": "x"], base: 1), by: People.ana).code == .recordNotFound)
        #expect(try h.push1(h.ops.op(People.ana, .delete, "jobs", "nope", base: 1), by: People.ana).code == .recordNotFound)
    }

    @Test("Rule 7: creating an existing record is a RECORD_EXISTS conflict carrying the server payload")
    func recordExists() throws {
        var h = try Harness()
        let base = try job(&h)
        let result = try h.push1(h.ops.op(People.ben, .create, "jobs", "j-1", ["title": "Mine"]), by: People.ben)
        #expect(result.status == .conflict && result.code == .recordExists)
        #expect(result.details?["serverPayload"]?["title"] == "Boiler" && result.details?["serverSeq"] == .int(base))
    }

    @Test("Rule 7: RECORD_EXISTS for a record created earlier in the same push names that create's serverSeq")
    func recordExistsInSameBatch() throws {
        var h = try Harness()
        let results = try h.push(
            [h.ops.op(People.ana, .create, "jobs", "j-1", ["title": "First"]), h.ops.op(People.ana, .create, "jobs", "j-1", ["title": "Again"])],
            by: People.ana)
        let created = try #require(results[0].serverSeq)
        #expect(results[1].code == .recordExists && results[1].details?["serverSeq"] == .int(created))
        #expect(h.state.opLog["dev-ana"]?[results[1].opId]?.result.details?["serverSeq"] == .int(created))
    }

    @Test("Rule 7: a visit is locked once done (RECORD_LOCKED); a status change outside the transitions is TRANSITION_NOT_ALLOWED")
    func lockAndTransitions() throws {
        var h = try Harness()
        var seq = try #require(try h.push1(h.ops.op(People.ana, .create, "visits", "v-1", ["siteId": "s-1"]), by: People.ana).serverSeq)
        #expect(h.record("visits", "v-1")?.payload["status"] == "planned")
        let skip = try h.push1(h.ops.op(People.ana, .update, "visits", "v-1", ["status": "done"], base: seq), by: People.ana)
        #expect(skip.status == .conflict && skip.code == .transitionNotAllowed && skip.details?["from"] == "planned")
        for status in ["checked_in", "in_progress", "done"] {
            let step = try h.push1(h.ops.op(People.ana, .update, "visits", "v-1", ["status": .string(status)], base: seq), by: People.ana)
            #expect(step.status == .applied, "\(status)")
            seq = try #require(step.serverSeq)
        }
        let notes = try h.push1(h.ops.op(People.ana, .update, "visits", "v-1", ["notes": "late"], base: seq), by: People.ana)
        #expect(notes.status == .rejected && notes.code == .recordLocked)
        #expect(try h.push1(h.ops.op(People.ana, .delete, "visits", "v-1", base: seq), by: People.ana).code == .recordLocked)
    }

    @Test("Rule 8: a device's own earlier ops never conflict with its later ones")
    func ownOpsNeverConflict() throws {
        var h = try Harness()
        let base = try job(&h)
        let one = try h.push1(h.ops.op(People.ana, .update, "jobs", "j-1", ["notes": "a"], base: base), by: People.ana)
        let two = try h.push1(h.ops.op(People.ana, .update, "jobs", "j-1", ["notes": "b"], base: base), by: People.ana)
        #expect(one.status == .applied && two.status == .applied && two.conflicts == nil)
        #expect(h.record("jobs", "j-1")?.payload["notes"] == "b")
    }

    @Test("Rule 8: the same user's other device does conflict (overlap is per device)")
    func otherDeviceOfSameUser() throws {
        var h = try Harness()
        let base = try job(&h)
        try h.push1(h.ops.op(People.ana, .update, "jobs", "j-1", ["notes": "phone"], base: base), by: People.ana)
        let tablet = try h.push1(h.ops.op(People.anaTablet, .update, "jobs", "j-1", ["notes": "tablet"], base: base), by: People.anaTablet)
        #expect(tablet.code == .fieldConflict)
    }

    @Test("Rule 8: an equal value is no overlap; a field set before the device's base is no overlap")
    func noOverlap() throws {
        var h = try Harness()
        let base = try job(&h)
        let ben = try h.push1(h.ops.op(People.ben, .update, "jobs", "j-1", ["notes": "same"], base: base), by: People.ben)
        let same = try h.push1(h.ops.op(People.ana, .update, "jobs", "j-1", ["notes": "same"], base: base), by: People.ana)
        #expect(same.status == .applied && same.conflicts == nil)
        let fresh = try h.push1(h.ops.op(People.ana, .update, "jobs", "j-1", ["notes": "newer"], base: ben.serverSeq), by: People.ana)
        #expect(fresh.status == .applied && fresh.conflicts == nil)
    }

    @Test("Rule 8: without a precedence table the server wins: FIELD_CONFLICT, merged fields applied, an entry opens and the record is flagged")
    func serverWins() throws {
        var h = try Harness()
        let base = try job(&h)
        let ben = try h.push1(h.ops.op(People.ben, .update, "jobs", "j-1", ["notes": "ben"], base: base), by: People.ben)
        let ana = try h.push1(
            h.ops.op(People.ana, .update, "jobs", "j-1", ["notes": "ana", "labor_minutes": 120], base: base, old: ["notes": nil]), by: People.ana)
        #expect(ana.status == .conflict && ana.code == .fieldConflict && ana.appliedFields == ["labor_minutes"])
        let serverSeq = try #require(ana.serverSeq)
        #expect(
            ana.conflicts == [
                FieldConflict(field: "notes", clientOld: nil, clientNew: "ana", serverCurrent: "ben", serverSeq: ben.serverSeq!, winner: .server)
            ])
        let conflictId = try #require(ana.conflictId)
        let job = try #require(h.record("jobs", "j-1"))
        #expect(job.payload["notes"] == "ben" && job.payload["labor_minutes"] == 120 && job.serverSeq == serverSeq)
        #expect(job.conflictId == conflictId)
        let entry = try #require(h.state.conflicts[conflictId]?.entry)
        #expect(entry.fields.map(\.field) == ["notes"] && entry.fields[0].winner == nil && entry.state == .open)
        #expect(entry.serverRevision["notes"] == "ben" && entry.deviceRevision["notes"] == "ana" && entry.deviceRevision["labor_minutes"] == 120)
        #expect(entry.authorId == "u-ana" && entry.deviceId == "dev-ana" && entry.opId.hasPrefix("dev-ana"))
        let events = h.state.events.map(\.type)
        #expect(events.contains(.conflictOpened))
    }

    @Test("Rule 8: when every overlapping field is won by precedence the op is applied and lists winner client")
    func precedenceClientWins() throws {
        var h = try Harness()
        let base = try job(&h)
        let ben = try h.push1(h.ops.op(People.ben, .update, "jobs", "j-1", ["status": "complete"], base: base), by: People.ben)
        let ana = try h.push1(
            h.ops.op(People.ana, .update, "jobs", "j-1", ["status": "on_hold"], base: base, old: ["status": "in_progress"]), by: People.ana)
        #expect(ana.status == .applied && ana.code == nil && ana.conflictId == nil)
        #expect(
            ana.conflicts == [
                FieldConflict(
                    field: "status", clientOld: "in_progress", clientNew: "on_hold", serverCurrent: "complete", serverSeq: ben.serverSeq!,
                    winner: .client)
            ])
        #expect(h.record("jobs", "j-1")?.payload["status"] == "on_hold")
    }

    @Test("Rule 8: when precedence keeps the server value and nothing merges, nothing is written")
    func precedenceServerWinsNothingApplied() throws {
        var h = try Harness()
        let base = try job(&h)
        try h.push1(h.ops.op(People.ben, .update, "jobs", "j-1", ["status": "cancelled"], base: base), by: People.ben)
        let before = h.state
        let ana = try h.push1(h.ops.op(People.ana, .update, "jobs", "j-1", ["status": "complete"], base: base), by: People.ana)
        #expect(ana.status == .conflict && ana.code == .fieldConflict && ana.serverSeq == nil && ana.appliedFields == [] && ana.conflictId == nil)
        let after = h.state
        #expect(after.records == before.records && after.sequence == before.sequence)
    }
}
