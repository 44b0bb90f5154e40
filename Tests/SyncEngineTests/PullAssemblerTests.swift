import Foundation
import SyncEngine
import SyncProtocol
import Testing

@Suite("Pull pages")
struct PullAssemblerTests {
    /// The rows Storage would select for `principal` after `cursor`, and the records they name.
    private func page(_ h: Harness, for principal: Principal, after cursor: Int64 = 0, limit: Int = 500, initial: Bool = false) -> PullAssembler.Page {
        let state = h.state
        let rows = state.changes.filter { $0.seq > cursor && principal.canSee($0.scopeKeysBefore + $0.scopeKeysAfter) }
        return PullAssembler.page(rows: Array(rows.prefix(limit + 1)), records: state.records, for: principal, limit: limit, initial: initial)
    }

    /// ana creates j-1 and j-2, edits j-1, dora moves j-2 to carla, ana deletes j-1.
    private func scenario() throws -> Harness {
        var h = try Harness()
        let one = try h.push1(h.ops.op(People.ana, .create, "jobs", "j-1", ["title": "one"]), by: People.ana)
        let two = try h.push1(h.ops.op(People.ana, .create, "jobs", "j-2", ["title": "two"]), by: People.ana)
        let edit = try h.push1(h.ops.op(People.ana, .update, "jobs", "j-1", ["notes": "n"], base: one.serverSeq), by: People.ana)
        try h.push1(h.ops.op(People.dora, .update, "jobs", "j-2", ["assigneeId": "u-carla", "teamId": "t-2"], base: two.serverSeq), by: People.dora)
        try h.push1(h.ops.op(People.ana, .delete, "jobs", "j-1", base: edit.serverSeq), by: People.ana)
        return h
    }

    @Test("Pull: each record once in its latest state; a tombstone is a delete; leaving the scope is a remove at the moving change")
    func incremental() throws {
        let h = try scenario()
        let ana = page(h, for: People.ana)
        #expect(ana.changes.map(\.type) == [.remove, .delete])
        #expect(ana.changes[0].recordId == "j-2" && ana.changes[0].serverSeq == 4)
        #expect(ana.changes[1].recordId == "j-1" && ana.changes[1].tombstone?.deletedServerSeq == 5)
        #expect(ana.lastSeq == 5 && !ana.hasMore)
        let carla = page(h, for: People.carla)
        #expect(carla.changes.map(\.recordId) == ["j-2"] && carla.changes[0].type == .upsert && carla.changes[0].payload?["assigneeId"] == "u-carla")
        let dora = page(h, for: People.dora)
        #expect(dora.changes.map(\.serverSeq) == [4, 5])
    }

    @Test("Pull: the initial sync sends no tombstones and no removes")
    func initial() throws {
        let h = try scenario()
        #expect(page(h, for: People.ana, initial: true).changes.isEmpty)
        #expect(page(h, for: People.carla, initial: true).changes.map(\.recordId) == ["j-2"])
    }

    @Test("Pull: paging by limit never skips or repeats a change")
    func paging() throws {
        let h = try scenario()
        var cursor: Int64 = 0
        var seen: [Change] = []
        while true {
            let page = page(h, for: People.dora, after: cursor, limit: 2)
            seen += page.changes
            cursor = page.lastSeq ?? cursor
            if !page.hasMore { break }
        }
        #expect(seen.map(\.serverSeq) == [4, 5])
        #expect(Set(seen.map(\.recordId)).count == seen.count)
    }

    @Test("Resolving a conflict on a deleted record: only the server choice closes it, as a delete change")
    func resolveDeleted() throws {
        var h = try Harness()
        let base = try #require(try h.push1(h.ops.op(People.ana, .create, "jobs", "j-1", ["title": "t"]), by: People.ana).serverSeq)
        try h.push1(h.ops.op(People.ben, .update, "jobs", "j-1", ["notes": "ben"], base: base), by: People.ben)
        let conflict = try h.push1(h.ops.op(People.ana, .update, "jobs", "j-1", ["notes": "ana"], base: base), by: People.ana)
        let id = try #require(conflict.conflictId)
        let current = try #require(h.record("jobs", "j-1"))
        try h.push1(h.ops.op(People.dora, .delete, "jobs", "j-1", base: current.serverSeq), by: People.dora)
        do {
            _ = try h.changes.resolveConflict(id, ResolveRequest(choice: .device), by: People.ana)
            Issue.record("a deleted record cannot take the device revision")
        } catch let error as SyncError {
            #expect(error.code == .recordDeleted)
        }
        let entry = try h.changes.resolveConflict(id, ResolveRequest(choice: .server), by: People.ana)
        #expect(entry.state == .resolved)
        let job = try #require(h.record("jobs", "j-1"))
        #expect(job.isDeleted && job.conflictId == nil && job.pullChange().type == .delete)
        #expect(h.state.changes.last?.type == .delete)
    }
}
