import App
import AppTesting
import Foundation
import Postgres
import SyncProtocol
import Testing

/// PROTOCOL.md "Push", rules 7 (record state), 8 (field conflicts) and 9 (atomicity), over HTTP.
@Suite("Push rules 7, 8 and 9 over HTTP")
struct SyncPushRecordStateTests {
    @Test("Rule 7: update or delete of a record that never existed is RECORD_NOT_FOUND")
    func recordNotFound() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device()

        let results = try await ana.pushEach([
            ana.update("jobs", "job-none", ["notes": "x"], base: 3), ana.delete("visits", "visit-none", base: 3),
        ])

        #expect(results.allSatisfy { $0.status == .rejected && $0.code == .recordNotFound })
        #expect(try server.scalar("SELECT count(*) FROM records") == 0)
    }

    @Test("Rule 7: create of an existing record is conflict RECORD_EXISTS with the server payload")
    func recordExists() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device()
        let ben = try await server.device()
        let seq = try await ana.applied(ana.create("jobs", "job-1", ["title": "Boiler"]))

        let result = try await ben.push1(ben.create("jobs", "job-1", ["title": "Other boiler"]))

        #expect(result.status == .conflict && result.code == .recordExists)
        guard case .object(let payload)? = result.details?["serverPayload"] else {
            Issue.record("no serverPayload in \(result)")
            return
        }
        #expect(payload["title"] == "Boiler")
        #expect(result.details?["serverSeq"] == .int(seq))
        #expect(try server.storedRecord("jobs", "job-1")?.payload["title"] == "Boiler")
    }

    @Test("Rule 7: a visit that is done is locked: RECORD_LOCKED for updates and deletes")
    func recordLocked() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device()
        let ben = try await server.device()
        var seq = try await ana.applied(ana.create("visits", "visit-1", ["siteId": "site-1"]))
        for (from, to) in [("planned", "checked_in"), ("checked_in", "in_progress"), ("in_progress", "done")] {
            seq = try await ana.applied(ana.update("visits", "visit-1", ["status": .string(to)], base: seq, old: ["status": .string(from)]))
        }

        let results = try await ana.pushEach([
            ana.update("visits", "visit-1", ["notes": "forgot something"], base: seq), ana.delete("visits", "visit-1", base: seq),
        ])
        let other = try await ben.push1(ben.update("visits", "visit-1", ["status": "not_done"], base: seq))

        #expect((results + [other]).allSatisfy { $0.status == .rejected && $0.code == .recordLocked })
        let visit = try #require(try server.storedRecord("visits", "visit-1"))
        #expect(visit.serverSeq == seq && visit.payload["notes"] == nil && visit.deletedSeq == nil)
    }

    @Test("Rule 7: a status change outside the allowed transitions is conflict TRANSITION_NOT_ALLOWED")
    func transitionNotAllowed() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device()
        let seq = try await ana.applied(ana.create("visits", "visit-1", ["siteId": "site-1"]))

        let result = try await ana.push1(ana.update("visits", "visit-1", ["status": "done"], base: seq, old: ["status": "planned"]))

        #expect(result.status == .conflict && result.code == .transitionNotAllowed)
        #expect(result.details?["from"] == "planned" && result.details?["to"] == "done")
        #expect(try server.storedRecord("visits", "visit-1")?.payload["status"] == "planned")
    }

    @Test("Rule 8: server wins an overlapping field: FIELD_CONFLICT with appliedFields, serverSeq and the conflict payload")
    func fieldConflictServerWins() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device()
        let ben = try await server.device()
        let base = try await ana.applied(ana.create("jobs", "job-1", ["title": "Boiler", "notes": "a", "labor_minutes": 10]))
        let benSeq = try await ben.applied(ben.update("jobs", "job-1", ["notes": "b"], base: base, old: ["notes": "a"]))

        let result = try await ana.push1(
            ana.update("jobs", "job-1", ["notes": "c", "labor_minutes": 20], base: base, old: ["notes": "a", "labor_minutes": 10]))

        #expect(result.status == .conflict && result.code == .fieldConflict)
        #expect(result.appliedFields == ["labor_minutes"])
        let seq = try #require(result.serverSeq)
        #expect(seq > benSeq)
        #expect(
            result.conflicts == [
                FieldConflict(field: "notes", clientOld: "a", clientNew: "c", serverCurrent: "b", serverSeq: benSeq, winner: .server)
            ])
        let job = try #require(try server.storedRecord("jobs", "job-1"))
        #expect(job.payload["notes"] == "b" && job.payload["labor_minutes"] == 20 && job.serverSeq == seq)
    }

    @Test("Rule 8: with nothing mergeable, a lost field is FIELD_CONFLICT without serverSeq and changes nothing")
    func fieldConflictNothingApplied() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device()
        let ben = try await server.device()
        let base = try await ana.applied(ana.create("jobs", "job-1", ["title": "Boiler", "status": "in_progress"]))
        let hold = try await ben.applied(ben.update("jobs", "job-1", ["status": "on_hold"], base: base))

        let result = try await ana.push1(ana.update("jobs", "job-1", ["status": "complete"], base: base, old: ["status": "in_progress"]))

        #expect(result.status == .conflict && result.code == .fieldConflict && result.serverSeq == nil)
        #expect(result.appliedFields == [])
        #expect(result.conflicts?.first?.winner == .server && result.conflicts?.first?.serverCurrent == "on_hold")
        #expect(try server.storedRecord("jobs", "job-1")?.serverSeq == hold)
    }

    @Test("Rule 8: a precedence win is applied with conflicts[].winner client and the value the server held")
    func precedenceClientWins() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device()
        let ben = try await server.device()
        let base = try await ana.applied(ana.create("jobs", "job-1", ["title": "Boiler", "status": "in_progress"]))
        let complete = try await ben.applied(ben.update("jobs", "job-1", ["status": "complete"], base: base))

        let result = try await ana.push1(ana.update("jobs", "job-1", ["status": "cancelled"], base: base, old: ["status": "in_progress"]))

        #expect(result.status == .applied && result.code == nil)
        #expect(
            result.conflicts == [
                FieldConflict(
                    field: "status", clientOld: "in_progress", clientNew: "cancelled", serverCurrent: "complete", serverSeq: complete,
                    winner: .client)
            ])
        #expect(try server.storedRecord("jobs", "job-1")?.payload["status"] == "cancelled")
    }

    @Test("Rule 8: no conflict for a device's own earlier ops, nor when the server already holds the client's value")
    func noFalseConflicts() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device()
        let ben = try await server.device()
        let base = try await ana.applied(ana.create("jobs", "job-1", ["title": "Boiler", "notes": "a"]))
        let own = try await ana.pushEach([
            ana.update("jobs", "job-1", ["notes": "b"], base: base), ana.update("jobs", "job-1", ["notes": "c"], base: base),
        ])
        let same = try await ben.push1(ben.update("jobs", "job-1", ["notes": "c"], base: base))

        #expect((own + [same]).allSatisfy { $0.status == .applied && $0.conflicts == nil })
        // Another device of the same user is another device.
        let tablet = try await ana.sibling()
        let fromTablet = try await tablet.push1(tablet.update("jobs", "job-1", ["notes": "d"], base: base))
        #expect(fromTablet.code == .fieldConflict)
    }

    @Test("Rule 9: a database error in one op does not undo the others; that op gets retry and nothing of it is stored")
    func atomicityPerOp() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device()
        // A real PostgreSQL error for one record: a trigger refusing it.
        try server.core.database.withConnection { connection in
            try connection.executeScript(
                """
                CREATE FUNCTION refuse_boom() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN IF NEW.record_id = 'job-boom' THEN RAISE EXCEPTION 'disk on fire'; END IF; RETURN NEW; END $$;
                CREATE TRIGGER refuse_boom BEFORE INSERT OR UPDATE ON records FOR EACH ROW EXECUTE FUNCTION refuse_boom();
                """)
        }
        let ops = [
            ana.create("jobs", "job-1", ["title": "a"]), ana.create("jobs", "job-boom", ["title": "b"]),
            ana.create("jobs", "job-3", ["title": "c"]),
        ]

        let results = try await ana.push(ops)

        #expect(results.map(\.status) == [.applied, .retry, .deferred])
        #expect(results[1].code == .temporarilyUnavailable && results[1].serverSeq == nil)
        // Nothing of op 2 is stored, so for rule 2 it never arrived: op 3 waits for it.
        #expect(results[2].code == .awaitingPredecessor && results[2].missing == .clientSeqs([2]))
        #expect(try server.storedRecord("jobs", "job-1") != nil && server.storedRecord("jobs", "job-3") == nil)
        #expect(try server.scalar("SELECT count(*) FROM op_log WHERE op_id = \(ops[1].opId)") == 0)

        try server.core.database.withConnection { try $0.executeScript("DROP TRIGGER refuse_boom ON records") }
        let retried = try await ana.push(ops)
        #expect(retried.map(\.status) == [.applied, .applied, .applied])
        #expect(retried[0].replayed == true && retried[0].serverSeq == results[0].serverSeq)
        #expect(retried[1].replayed == nil && retried[2].replayed == true)
        #expect(try server.storedRecord("jobs", "job-boom") != nil && server.storedRecord("jobs", "job-3") != nil)
    }
}
