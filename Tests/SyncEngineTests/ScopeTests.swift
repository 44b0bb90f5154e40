import Foundation
import SyncEngine
import SyncEngineTesting
import SyncProtocol
import Testing

@Suite("Scopes")
struct ScopeTests {
    @Test("A field user sees its own user key and team; a supervisor its team and members; the office everything")
    func visibility() {
        #expect(People.ana.visibleScopeKeys == [.user("u-ana"), .team("t-1")])
        #expect(People.sam.visibleScopeKeys == [.team("t-1"), .user("u-ana"), .user("u-ben")])
        #expect(People.dora.visibleScopeKeys == nil && People.adam.visibleScopeKeys == nil)
        #expect(People.sam.canSee([ScopeKey.user("u-ben")]) && !People.sam.canSee([ScopeKey.user("u-carla"), .team("t-2")]))
        #expect(People.carla.canSee([ScopeKey.team("t-2")]) && !People.carla.canSee([ScopeKey.team("t-1")]))
        #expect(ScopeKey.keys(of: ["assigneeId": "u-1", "teamId": "t-1", "other": "x"]) == [.team("t-1"), .user("u-1")])
    }

    @Test("A record created without assignee or team gets the author's")
    func createGetsAuthorsScope() throws {
        var h = try Harness()
        try h.push1(h.ops.op(People.ana, .create, "jobs", "j-1", ["title": "t"]), by: People.ana)
        let job = try #require(h.record("jobs", "j-1"))
        #expect(job.payload["assigneeId"] == "u-ana" && job.payload["teamId"] == "t-1" && job.scopeKeys == [.team("t-1"), .user("u-ana")])
        try h.push1(h.ops.op(People.dora, .create, "assignments", "a-1", ["title": "Inspect", "assigneeId": "u-ben"]), by: People.dora)
        #expect(h.record("assignments", "a-1")?.scopeKeys == [.user("u-ben")])
    }

    @Test("A field device writes records it sees and may not create or move records out of its scope (OUT_OF_SCOPE)")
    func fieldWrites() throws {
        var h = try Harness()
        let base = try h.push1(h.ops.op(People.ana, .create, "jobs", "j-1", ["title": "t"]), by: People.ana).serverSeq
        #expect(try h.push1(h.ops.op(People.ben, .update, "jobs", "j-1", ["notes": "team mate"], base: base), by: People.ben).status == .applied)
        #expect(try h.push1(h.ops.op(People.carla, .update, "jobs", "j-1", ["notes": "stranger"], base: base), by: People.carla).code == .outOfScope)
        #expect(try h.push1(h.ops.op(People.carla, .create, "jobs", "j-9", ["title": "t", "teamId": "t-1"]), by: People.carla).code == .outOfScope)
        #expect(try h.push1(h.ops.op(People.carla, .create, "jobs", "j-1", ["title": "t"]), by: People.carla).code == .outOfScope)
        let away = h.ops.op(People.ana, .update, "jobs", "j-1", ["assigneeId": "u-carla", "teamId": "t-2"], base: base)
        #expect(try h.push1(away, by: People.ana).code == .outOfScope)
        #expect(try h.push1(h.ops.op(People.carla, .delete, "jobs", "j-1", base: base), by: People.carla).code == .outOfScope)
    }

    @Test("The office reassigns any record; the change log keeps scope keys before and after so pulls can emit remove")
    func reassignment() throws {
        var h = try Harness()
        let base = try h.push1(h.ops.op(People.ana, .create, "jobs", "j-1", ["title": "t"]), by: People.ana).serverSeq
        let move = try h.push1(
            h.ops.op(People.dora, .update, "jobs", "j-1", ["assigneeId": "u-carla", "teamId": "t-2"], base: base), by: People.dora)
        #expect(move.status == .applied)
        let change = try #require(h.state.changes.last)
        #expect(
            change.seq == move.serverSeq && change.scopeKeysBefore == [.team("t-1"), .user("u-ana")]
                && change.scopeKeysAfter == [.team("t-2"), .user("u-carla")])
        let job = try #require(h.record("jobs", "j-1"))
        #expect(!People.ana.canSee(job.scopeKeys))
        let event = try #require(h.state.events.last { $0.type == .recordChanged })
        #expect(event.audience.scopeKeys == [.team("t-1"), .team("t-2"), .user("u-ana"), .user("u-carla")] && event.audience.userIds == ["u-dora"])
    }
}
