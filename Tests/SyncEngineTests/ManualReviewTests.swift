import Foundation
import SyncEngine
import SyncEngineTesting
import SyncProtocol
import Testing

@Suite("Manual policy and conflict resolution")
struct ManualReviewTests {
    /// A report created by ana, then changed by ben, then ana's stale edit: returns ana's REVIEW_REQUIRED result.
    private func reviewed(_ h: inout Harness) throws -> (result: OpResult, benSeq: Int64) {
        let base = try #require(
            try h.push1(h.ops.op(People.ana, .create, "reports", "r-1", ["assignmentId": "a-1", "answers": ["q1": "yes"]]), by: People.ana).serverSeq)
        let ben = try h.push1(h.ops.op(People.ben, .update, "reports", "r-1", ["answers": ["q1": "no"]], base: base), by: People.ben)
        let ana = try h.push1(
            h.ops.op(People.ana, .update, "reports", "r-1", ["answers": ["q1": "maybe"], "photos": ["att-9"]], base: base), by: People.ana)
        return (ana, try #require(ben.serverSeq))
    }

    @Test("Rule 8 manual policy: nothing applies, REVIEW_REQUIRED, record flagged with a new serverSeq, entry holds both full revisions")
    func reviewRequired() throws {
        var h = try Harness()
        let (result, benSeq) = try reviewed(&h)
        #expect(result.status == .conflict && result.code == .reviewRequired && result.serverSeq == nil)
        let conflictId = try #require(result.conflictId)
        let report = try #require(h.record("reports", "r-1"))
        #expect(report.payload["answers"] == ["q1": "no"] && report.payload["photos"] == nil)
        #expect(report.conflictId == conflictId && report.serverSeq > benSeq)
        #expect(report.conflictId == conflictId)
        let entry = try #require(h.state.conflicts[conflictId]?.entry)
        #expect(entry.serverRevision == ["assignmentId": "a-1", "answers": ["q1": "no"], "assigneeId": "u-ana", "teamId": "t-1"])
        #expect(
            entry.deviceRevision == ["assignmentId": "a-1", "answers": ["q1": "maybe"], "photos": ["att-9"], "assigneeId": "u-ana", "teamId": "t-1"])
        #expect(entry.fields.map(\.field) == ["answers"] && entry.state == .open && entry.authorId == "u-ana")
        #expect(h.state.changes.last?.seq == report.serverSeq)
    }

    @Test("Resolve by device: the device revision applies with a new seq, the flag clears, a second resolve is CONFLICT_ALREADY_RESOLVED")
    func resolveDevice() throws {
        var h = try Harness()
        let (result, _) = try reviewed(&h)
        let flagged = try #require(h.record("reports", "r-1"))
        let entry = try h.changes.resolveConflict(result.conflictId!, ResolveRequest(choice: .device), by: People.ana)
        let report = try #require(h.record("reports", "r-1"))
        #expect(report.payload["answers"] == ["q1": "maybe"] && report.payload["photos"] == ["att-9"])
        #expect(report.conflictId == nil && report.serverSeq > flagged.serverSeq)
        #expect(entry.state == .resolved && entry.resolution?.choice == .device && entry.resolution?.by == "u-ana")
        #expect(entry.resolution?.serverSeq == report.serverSeq)
        #expect(h.state.events.contains { $0.type == .conflictResolved && $0.conflictId == entry.id })
        #expect(throws: SyncError(.conflictAlreadyResolved, "conflict \(entry.id) is already resolved")) {
            try h.changes.resolveConflict(entry.id, ResolveRequest(choice: .server), by: People.dora)
        }
    }

    @Test("Resolve by server: values stay, a new change clears the flag")
    func resolveServer() throws {
        var h = try Harness()
        let (result, _) = try reviewed(&h)
        let flagged = try #require(h.record("reports", "r-1"))
        let entry = try h.changes.resolveConflict(result.conflictId!, ResolveRequest(choice: .server), by: People.dora)
        let report = try #require(h.record("reports", "r-1"))
        #expect(report.payload == flagged.payload && report.conflictId == nil && report.serverSeq > flagged.serverSeq)
        #expect(entry.resolution?.by == "u-dora" && entry.resolution?.choice == .server)
    }

    @Test("Resolve by merge applies the given fields after the rule 4 field checks")
    func resolveMerge() throws {
        var h = try Harness()
        let (result, _) = try reviewed(&h)
        let id = try #require(result.conflictId)
        #expect(throws: SyncError.self) { try h.changes.resolveConflict(id, ResolveRequest(choice: .merge), by: People.dora) }
        do {
            _ = try h.changes.resolveConflict(id, ResolveRequest(choice: .merge, fields: ["mood": "ok"]), by: People.dora)
            Issue.record("an unknown field must fail")
        } catch let error as SyncError {
            #expect(error.code == .unknownField)
        }
        let entry = try h.changes.resolveConflict(id, ResolveRequest(choice: .merge, fields: ["answers": ["q1": "no, then yes"]]), by: People.dora)
        #expect(entry.resolution?.choice == .merge)
        #expect(h.record("reports", "r-1")?.payload["answers"] == ["q1": "no, then yes"])
    }

    @Test("Only the op's author and dispatchers/admins resolve; unknown ids are NOT_FOUND")
    func resolvePermissions() throws {
        var h = try Harness()
        let (result, _) = try reviewed(&h)
        do {
            _ = try h.changes.resolveConflict(result.conflictId!, ResolveRequest(choice: .server), by: People.ben)
            Issue.record("ben is not the author")
        } catch let error as SyncError {
            #expect(error.code == .forbidden)
        }
        do {
            _ = try h.changes.resolveConflict("nope", ResolveRequest(choice: .server), by: People.adam)
            Issue.record("unknown conflict")
        } catch let error as SyncError {
            #expect(error.code == .notFound)
        }
    }

    @Test("A pushed op with resolves and a fresh base applies and closes the conflict in the device's favour")
    func resolveByPush() throws {
        var h = try Harness()
        let (result, _) = try reviewed(&h)
        let id = try #require(result.conflictId)
        let flagged = try #require(h.record("reports", "r-1"))
        let op = h.ops.op(People.ana, .update, "reports", "r-1", ["answers": ["q1": "maybe"]], base: flagged.serverSeq, resolves: id)
        let push = try h.push1(op, by: People.ana)
        #expect(push.status == .applied)
        let report = try #require(h.record("reports", "r-1"))
        #expect(report.conflictId == nil && report.payload["answers"] == ["q1": "maybe"])
        let entry = try #require(h.state.conflicts[id]?.entry)
        #expect(
            entry.state == .resolved
                && entry.resolution == ConflictEntry.Resolution(choice: .device, by: "u-ana", at: h.clock.stamp(), serverSeq: push.serverSeq!))
        let bogus = h.ops.op(People.ana, .update, "reports", "r-1", ["answers": ["q1": "x"]], base: report.serverSeq, resolves: "c-404")
        let rejected = try h.push1(bogus, by: People.ana)
        #expect(rejected.code == .validationFailed && rejected.details?["field"] == "resolves")
    }
}
