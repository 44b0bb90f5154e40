import App
import AppTesting
import Foundation
import SyncAPI
import SyncEngine
import SyncProtocol
import Testing

/// PROTOCOL.md "Pull": pages, limits, tombstones and cursors, over HTTP against PostgreSQL.
@Suite("Pull over HTTP")
struct SyncPullTests {
    @Test("The initial sync sends no tombstones; a delta pull from an older cursor sends the delete")
    func initialSyncWithoutTombstones() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device()
        let seqs = try await ana.push((1...3).map { ana.create("jobs", "job-\($0)", ["title": "t"]) }).map(\.serverSeq)
        let before = try await ana.drain().cursor
        let deleted = try await ana.applied(ana.delete("jobs", "job-2", base: seqs[1]))

        let fresh = try await (try await server.device()).drain()
        let delta = try await ana.drain(from: before)

        #expect(fresh.changes.map(\.recordId) == ["job-1", "job-3"] && fresh.changes.allSatisfy { $0.type == .upsert })
        #expect(delta.changes.count == 1)
        let delete = try #require(delta.changes.first)
        #expect(delete.type == .delete && delete.recordId == "job-2" && delete.serverSeq == deleted)
        #expect(delete.tombstone == Change.Tombstone(deletedServerSeq: deleted) && delete.payload == nil)
    }

    @Test("limit is clamped to 500 (and defaults to it); a bad limit is 400 VALIDATION_FAILED naming limit")
    func limitClamped() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device()
        for batch in 0..<11 {
            let ops = (0..<46).map { ana.create("jobs", "job-\(batch)-\($0)", ["title": "t"]) }
            #expect(try await ana.push(ops).allSatisfy { $0.status == .applied })
        }

        let huge = try await ana.pull(limit: 100_000)
        let byDefault = try await ana.pull()
        let rest = try await ana.pull(cursor: huge.nextCursor, limit: 1_000)

        #expect(huge.changes.count == 500 && huge.hasMore)
        #expect(byDefault.changes.count == 500 && byDefault.hasMore)
        #expect(rest.changes.count == 6 && !rest.hasMore)
        for bad in ["0", "-3", "abc", "1.5", ""] {
            let response = try await ana.pullResponse(limit: bad)
            #expect(response.status == 400, "limit=\(bad)")
            #expect(try response.errorEnvelope().error.details?["field"] == "limit" && response.errorCode == "VALIDATION_FAILED")
        }
    }

    @Test("A page holds each record at most once, in its latest state, in ascending serverSeq")
    func latestStateOncePerPage() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device()
        let before = try await ana.drain().cursor
        var seq = try await ana.applied(ana.create("jobs", "job-1", ["title": "Boiler"]))
        for minutes in [10, 20, 30] {
            seq = try await ana.applied(ana.update("jobs", "job-1", ["labor_minutes": .int(Int64(minutes))], base: seq))
        }
        let other = try await ana.applied(ana.create("jobs", "job-2", ["title": "Pump"]))
        seq = try await ana.applied(ana.update("jobs", "job-1", ["notes": "last"], base: seq))

        let page = try await ana.pull(cursor: before)

        #expect(page.changes.map(\.recordId) == ["job-2", "job-1"])
        #expect(page.changes.map(\.serverSeq) == [other, seq])
        #expect(page.changes[1].payload?["labor_minutes"] == 30 && page.changes[1].payload?["notes"] == "last")
        #expect(page.changes[1].fieldMeta?["notes"]?.seq == seq && page.newServerSeq == seq && !page.hasMore)
    }

    @Test("A record deleted or moved out of scope while a device is in its initial sync (limit 2) is delivered as delete or remove later")
    func changesDuringInitialSync() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device(team: "north")
        let dora = try await server.device(.dispatcher, team: nil)
        let seqs = try await ana.push((1...6).map { ana.create("jobs", "job-\($0)", ["title": "t"]) }).map(\.serverSeq)

        let first = try await ana.pull(limit: 2)
        #expect(first.changes.map(\.recordId) == ["job-1", "job-2"] && first.hasMore)
        let moved = try await dora.push([
            dora.delete("jobs", "job-1", base: seqs[0]), dora.delete("jobs", "job-5", base: seqs[4]),
            dora.update("jobs", "job-2", ["teamId": "south", "assigneeId": "someone-else"], base: seqs[1]),
        ])
        #expect(moved.allSatisfy { $0.status == .applied })
        let rest = try await ana.drain(from: first.nextCursor, limit: 2)

        #expect(rest.last("jobs", "job-1")?.type == .delete)
        #expect(rest.last("jobs", "job-2")?.type == .remove && rest.last("jobs", "job-2")?.serverSeq == moved[2].serverSeq)
        var replica = Replica(first.changes)
        replica.apply(rest.changes)
        #expect(replica.records.keys.sorted() == ["jobs/job-3", "jobs/job-4", "jobs/job-6"])
        #expect(replica == Replica(try await ana.drain().changes))
    }

    @Test("A dispatcher reassigning a job or assignment from A to B: A's next pull gets remove, B's gets upsert")
    func reassignmentRemoves() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device(team: "north")
        let carla = try await server.device(team: "south")
        let dora = try await server.device(.dispatcher, team: nil)
        let created = try await dora.push([
            dora.create("assignments", "as-1", ["title": "Inspect", "assigneeId": .string(ana.user.id)]),
            dora.create("jobs", "job-1", ["title": "Boiler", "assigneeId": .string(ana.user.id), "teamId": "north"]),
        ])
        let anaCursor = try await ana.drain().cursor
        let carlaCursor = try await carla.drain().cursor

        let moved = try await dora.push([
            dora.update("assignments", "as-1", ["assigneeId": .string(carla.user.id)], base: created[0].serverSeq),
            dora.update("jobs", "job-1", ["assigneeId": .string(carla.user.id), "teamId": "south"], base: created[1].serverSeq),
        ])

        let anaSees = try await ana.drain(from: anaCursor).changes
        let carlaSees = try await carla.drain(from: carlaCursor).changes
        #expect(anaSees.map(\.type) == [.remove, .remove] && anaSees.map(\.serverSeq) == moved.map(\.serverSeq))
        #expect(anaSees.allSatisfy { $0.payload == nil && $0.tombstone == nil })
        #expect(carlaSees.map(\.type) == [.upsert, .upsert] && carlaSees.map(\.recordId) == ["as-1", "job-1"])
        #expect(carlaSees[1].payload?["title"] == "Boiler")
    }

    @Test("A record moving between users of one team stays visible through the team key: upsert, not remove")
    func reassignmentWithinTeam() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device(team: "north")
        let ben = try await server.device(team: "north")
        let dora = try await server.device(.dispatcher, team: nil)
        let seq = try await dora.applied(
            dora.create("jobs", "job-1", ["title": "Boiler", "assigneeId": .string(ana.user.id), "teamId": "north"]))
        let cursor = try await ana.drain().cursor

        let moved = try await dora.applied(dora.update("jobs", "job-1", ["assigneeId": .string(ben.user.id)], base: seq))

        let changes = try await ana.drain(from: cursor).changes
        #expect(changes.map(\.type) == [.upsert] && changes.first?.serverSeq == moved)
        #expect(changes.first?.payload?["assigneeId"] == .string(ben.user.id))
    }

    @Test("Records reached through both the user's own key and the team's key fill pages once each, in position order")
    func overlappingKeysFillPages() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device(team: "north")
        let dora = try await server.device(.dispatcher, team: nil)
        // Alternately Ana's own (both keys) and the team's (team key only), and one of hers outside the team.
        var ops = (1...7).map { n in
            dora.create(
                "jobs", "job-\(n)", ["title": "t", "teamId": "north"].merging(n % 2 == 1 ? ["assigneeId": .string(ana.user.id)] : [:]) { $1 })
        }
        ops.append(dora.create("jobs", "job-8", ["title": "t", "assigneeId": .string(ana.user.id)]))
        for op in ops { _ = try await dora.applied(op) }

        let run = try await ana.drain(limit: 3)

        #expect(run.pages.map(\.changes.count) == [3, 3, 2])
        #expect(run.changes.map(\.recordId) == (1...8).map { "job-\($0)" })
    }

    @Test("A tampered, truncated or foreign cursor is 400 CURSOR_INVALID")
    func cursorInvalid() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device()
        try await ana.push1(ana.create("jobs", "job-1", ["title": "t"]))
        let cursor = try await ana.pull().nextCursor
        let parts = cursor.split(separator: ".").map(String.init)
        let forged = PullCursorCodec(key: Data("some other key".utf8)).encode(
            PullCursor(position: PullPosition(xid: 0, seq: 0), initialSyncStart: nil, issuedAt: Date()))
        let flipped = String(parts[0].dropLast()) + (parts[0].last == "A" ? "B" : "A") + "." + parts[1]

        for bad in [flipped, String(cursor.dropLast(3)), parts[0], "garbage", forged, String(repeating: "a", count: 600)] {
            let response = try await ana.pullResponse(cursor: bad)
            #expect(response.status == 400 && response.errorCode == "CURSOR_INVALID", "cursor \(bad.prefix(20))")
        }
    }

    @Test("A cursor issued more than 30 days ago is 410 CURSOR_EXPIRED; a 29-day-old one still pages")
    func cursorExpired() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device()
        try await ana.push1(ana.create("jobs", "job-1", ["title": "t"]))
        let codec = server.application.feature(SyncFeature.self)!.cursors
        let old = codec.encode(
            PullCursor(position: PullPosition(xid: 0, seq: 0), initialSyncStart: nil, issuedAt: Date().addingTimeInterval(-31 * 86_400)))
        let recent = codec.encode(
            PullCursor(position: PullPosition(xid: 0, seq: 0), initialSyncStart: nil, issuedAt: Date().addingTimeInterval(-29 * 86_400)))

        let expired = try await ana.pullResponse(cursor: old)
        let working = try await ana.pull(cursor: recent)

        #expect(expired.status == 410 && expired.errorCode == "CURSOR_EXPIRED")
        #expect(working.changes.map(\.recordId) == ["job-1"])
        // Starting over without a cursor is the way back; nothing queued is touched.
        #expect(try await ana.pull().changes.map(\.recordId) == ["job-1"])
    }
}
