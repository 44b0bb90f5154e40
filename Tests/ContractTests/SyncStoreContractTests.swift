import SyncEngine
import SyncEngineTesting
import SyncProtocol
import Testing

/// The sync store port (`SyncStore` with its `PullReader`): the data-integrity matrix, held by the
/// in-memory store and by PostgreSQL alike.
@Suite("Sync store contract: the data-integrity matrix")
struct SyncStoreContractTests {
    @Test("(a) a replayed push gets the same serverSeqs and changes nothing", arguments: Implementation.allCases)
    func replayedPush(_ implementation: Implementation) throws {
        let h = try SyncSubject(implementation)
        let ops = [
            h.ops.op(People.ana, .create, "jobs", "j-1", ["title": "t"]), h.ops.op(People.ana, .update, "jobs", "j-1", ["notes": "n"], base: 0),
        ]
        let first = try h.push(ops, by: People.ana)
        let (before, record) = (try h.snapshot(), try h.record("jobs", "j-1"))

        let again = try h.push(ops, by: People.ana)

        #expect(again.map(\.serverSeq) == first.map(\.serverSeq))
        #expect(again.allSatisfy { $0.status == .applied && $0.replayed == true })
        let after = try h.snapshot()
        #expect(after.newServerSeq == before.newServerSeq && after.changes == before.changes)
        #expect(try h.record("jobs", "j-1") == record)
    }

    @Test("(b) a part consumption re-pushed after an app relaunch is applied once", arguments: Implementation.allCases)
    func partConsumedOnce(_ implementation: Implementation) throws {
        let h = try SyncSubject(implementation)
        let usage = h.ops.op(People.ana, .create, "part_usage", "p-1", ["job_id": "j-1", "sku": "VALVE-22", "qty": 2])
        let first = try h.push1(usage, by: People.ana)
        // The response was lost; after relaunch the app re-sends its whole queue plus new work.
        let next = h.ops.op(People.ana, .create, "part_usage", "p-2", ["job_id": "j-1", "sku": "VALVE-22", "qty": 1])

        let relaunch = try h.push([usage, next], by: People.ana)

        #expect(relaunch[0].replayed == true && relaunch[0].serverSeq == first.serverSeq)
        #expect(relaunch[1].status == .applied && relaunch[1].replayed == nil)
        let pulled = try h.drain(People.ana).changes
        let consumed = pulled.filter { $0.payload?["sku"] == "VALVE-22" }.compactMap { $0.payload?["qty"]?.intValue }
        #expect(consumed.reduce(0, +) == 3 && pulled.count == 2)
        #expect(try h.opLog(People.ana, [usage.opId]).map(\.result.serverSeq) == [first.serverSeq])
    }

    @Test(
        "(c) an op against a record another device deleted is RECORD_DELETED with the tombstone seq; no resurrection",
        arguments: Implementation.allCases)
    func deletedByOtherDevice(_ implementation: Implementation) throws {
        let h = try SyncSubject(implementation)
        let base = try h.applied(h.ops.op(People.ana, .create, "jobs", "j-1", ["title": "Boiler"]), by: People.ana)
        let synced = try h.drain(People.ana).cursor
        let deleted = try h.applied(h.ops.op(People.ben, .delete, "jobs", "j-1", base: base), by: People.ben)

        let results = [
            try h.push1(h.ops.op(People.ana, .update, "jobs", "j-1", ["notes": "still here?"], base: base), by: People.ana),
            try h.push1(h.ops.op(People.ana, .create, "jobs", "j-1", ["title": "Again"]), by: People.ana),
        ]

        for result in results {
            #expect(result.status == .rejected && result.code == .recordDeleted && result.tombstoneSeq == deleted)
        }
        let stored = try #require(try h.record("jobs", "j-1"))
        #expect(stored.tombstoneSeq == deleted && stored.serverSeq == deleted && stored.payload["notes"] == nil)
        let change = try h.drain(People.ana, from: synced).last("jobs", "j-1")
        #expect(change?.type == .delete && change?.tombstone?.deletedServerSeq == deleted)
    }

    @Test(
        "(d) two devices set jobs.status from one base: same final value in both push orders; the loser sees both values",
        arguments: Implementation.allCases)
    func statusInBothOrders(_ implementation: Implementation) throws {
        var finals: [JSONValue?] = []
        for holdFirst in [true, false] {
            let h = try SyncSubject(implementation)
            let base = try h.applied(
                h.ops.op(People.dora, .create, "jobs", "j-1", ["title": "t", "status": "in_progress", "teamId": "t-1"]), by: People.dora)
            let hold = h.ops.op(People.ana, .update, "jobs", "j-1", ["status": "on_hold"], base: base, old: ["status": "in_progress"])
            let complete = h.ops.op(People.ben, .update, "jobs", "j-1", ["status": "complete"], base: base, old: ["status": "in_progress"])
            if holdFirst {
                let holdSeq = try h.applied(hold, by: People.ana)
                let loser = try h.push1(complete, by: People.ben)
                #expect(loser.status == .conflict && loser.code == .fieldConflict && loser.conflictId == nil)
                #expect(
                    loser.conflicts == [
                        FieldConflict(
                            field: "status", clientOld: "in_progress", clientNew: "complete", serverCurrent: "on_hold", serverSeq: holdSeq,
                            winner: .server)
                    ])
            } else {
                let synced = try h.drain(People.ben).cursor
                let completeSeq = try h.applied(complete, by: People.ben)
                let winner = try h.push1(hold, by: People.ana)
                #expect(winner.status == .applied && winner.conflictId == nil)
                #expect(
                    winner.conflicts == [
                        FieldConflict(
                            field: "status", clientOld: "in_progress", clientNew: "on_hold", serverCurrent: "complete",
                            serverSeq: completeSeq, winner: .client)
                    ])
                // The overwritten device learns it from its next pull.
                #expect(try h.drain(People.ben, from: synced).last("jobs", "j-1")?.payload?["status"] == "on_hold")
            }
            let job = try #require(try h.record("jobs", "j-1"))
            #expect(job.conflictId == nil)
            finals.append(job.payload["status"])
        }
        #expect(finals == ["on_hold", "on_hold"])
    }

    @Test("(e) labor_minutes and notes changed from the same base both survive without conflict", arguments: Implementation.allCases)
    func disjointFieldsMerge(_ implementation: Implementation) throws {
        let h = try SyncSubject(implementation)
        let base = try h.applied(h.ops.op(People.ana, .create, "jobs", "j-1", ["title": "t", "labor_minutes": 90]), by: People.ana)

        let labor = try h.push1(
            h.ops.op(People.ana, .update, "jobs", "j-1", ["labor_minutes": 135], base: base, old: ["labor_minutes": 90]), by: People.ana)
        let notes = try h.push1(h.ops.op(People.ben, .update, "jobs", "j-1", ["notes": "valve replaced"], base: base), by: People.ben)

        #expect(labor.status == .applied && notes.status == .applied && labor.conflicts == nil && notes.conflicts == nil)
        let change = try #require(try h.drain(People.ben).last("jobs", "j-1"))
        #expect(change.payload?["labor_minutes"] == 135 && change.payload?["notes"] == "valve replaced" && change.conflict == nil)
        #expect(change.fieldMeta?["labor_minutes"]?.deviceId == "dev-ana" && change.fieldMeta?["notes"]?.deviceId == "dev-ben")
        #expect(try h.record("jobs", "j-1")?.conflictId == nil)
    }

    @Test(
        "(f) clientSeq order: two batches of one device arriving reversed wait as deferred ops and end in the same state",
        arguments: Implementation.allCases)
    func reversedBatches(_ implementation: Implementation) throws {
        var records: [StoredRecord] = []
        for reversed in [false, true] {
            let h = try SyncSubject(implementation)
            let batch1 = [
                h.ops.op(People.ana, .create, "jobs", "j-1", ["title": "t", "status": "in_progress"]),
                h.ops.op(People.ana, .update, "jobs", "j-1", ["notes": "one"], base: 0),
            ]
            let batch2 = [
                h.ops.op(People.ana, .update, "jobs", "j-1", ["labor_minutes": 30, "notes": "two"], base: 0),
                h.ops.op(People.ana, .update, "jobs", "j-1", ["status": "complete"], base: 0),
            ]
            if reversed {
                #expect(try h.push(batch2, by: People.ana).allSatisfy { $0.code == .awaitingPredecessor })
                #expect(try h.opLog(People.ana, batch2.map(\.opId)).allSatisfy { $0.pending != nil })
                #expect(try h.record("jobs", "j-1") == nil)
                #expect(try h.push(batch1, by: People.ana).allSatisfy { $0.status == .applied })
                #expect(try h.push(batch2, by: People.ana).allSatisfy { $0.status == .applied && $0.replayed == true })
            } else {
                #expect(try h.push(batch1 + batch2, by: People.ana).allSatisfy { $0.status == .applied })
            }
            var record = try #require(try h.record("jobs", "j-1"))
            // PostgreSQL stamps its own clock's times on a record (the engine's clock stamps the fake's).
            (record.createdAt, record.updatedAt) = ("", "")
            records.append(record)
        }
        #expect(records[0] == records[1])
        #expect(
            records[0].payload == ["title": "t", "status": "complete", "notes": "two", "labor_minutes": 30, "assigneeId": "u-ana", "teamId": "t-1"])
    }

    @Test(
        "(g) paging from a cursor far behind returns every change exactly once, the cursor strictly advancing",
        arguments: Implementation.allCases)
    func pagingFarBehind(_ implementation: Implementation) throws {
        let h = try SyncSubject(implementation)
        let start = try h.drain(People.ana).cursor
        var seqs: [String: Int64] = [:]
        let creates = (1...45).map { h.ops.op(People.ana, .create, "jobs", "j-\($0)", ["title": .string("job \($0)")]) }
        for (index, result) in try h.push(creates, by: People.ana).enumerated() { seqs["j-\(index + 1)"] = result.serverSeq }
        let updates = stride(from: 1, through: 45, by: 3).map {
            h.ops.op(People.ana, .update, "jobs", "j-\($0)", ["notes": "again"], base: seqs["j-\($0)"])
        }
        let deletes = stride(from: 2, through: 45, by: 5).map { h.ops.op(People.ana, .delete, "jobs", "j-\($0)", base: seqs["j-\($0)"]) }
        #expect(try h.push(updates + deletes, by: People.ana).allSatisfy { $0.status == .applied })

        let run = try h.drain(People.ana, from: start, limit: 4)

        let changes = try run.changes
        let seen = changes.map(\.recordId)
        #expect(Set(seen).count == seen.count && seen.count == 45, "each record once, in its latest state")
        let ordered = changes.map(\.serverSeq)
        #expect(zip(ordered, ordered.dropFirst()).allSatisfy { $0 < $1 })
        #expect(run.pages.dropLast().allSatisfy { $0.changes.count == 4 && $0.hasMore })
        #expect(changes.filter { $0.type == .delete }.count == 9)
        #expect(try h.drain(People.ana, from: start).changes == changes, "small pages add up to one large one")
        #expect(try h.drain(People.ana).changes.count == 36, "an initial sync leaves out tombstones")
    }

    @Test(
        "Scope removal: a record moved out of a device's scopes is pulled as remove there and as upsert where it went",
        arguments: Implementation.allCases)
    func scopeRemoval(_ implementation: Implementation) throws {
        let h = try SyncSubject(implementation)
        let base = try h.applied(h.ops.op(People.ana, .create, "jobs", "j-1", ["title": "Boiler"]), by: People.ana)
        let (anaSynced, carlaSynced) = (try h.drain(People.ana).cursor, try h.drain(People.carla).cursor)
        #expect(try h.drain(People.carla).changes.isEmpty)

        let moved = try h.applied(
            h.ops.op(People.dora, .update, "jobs", "j-1", ["assigneeId": "u-carla", "teamId": "t-2"], base: base), by: People.dora)

        let removal = try h.drain(People.ana, from: anaSynced).changes
        #expect(removal.map(\.type) == [.remove] && removal.first?.serverSeq == moved && removal.first?.payload == nil)
        let arrival = try h.drain(People.carla, from: carlaSynced).changes
        #expect(arrival.map(\.type) == [.upsert] && arrival.first?.payload?["title"] == "Boiler")
        #expect(try h.drain(People.ana).changes.isEmpty, "a fresh sync never had the record")
    }

    @Test(
        "(h) after a failed op its entity's later ops are PREDECESSOR_FAILED, also on replay; other entities apply",
        arguments: Implementation.allCases)
    func predecessorFailed(_ implementation: Implementation) throws {
        let h = try SyncSubject(implementation)
        let missing = h.ops.op(People.ana, .update, "jobs", "j-404", ["notes": "a"], base: 1)
        let blocked = h.ops.op(People.ana, .update, "jobs", "j-404", ["notes": "b"], base: 1)
        let other = h.ops.op(People.ana, .create, "jobs", "j-2", ["title": "fine"])

        let results = try h.push([missing, blocked, other], by: People.ana)

        #expect(results[0].status == .rejected && results[0].code == .recordNotFound)
        #expect(results[1].status == .conflict && results[1].code == .predecessorFailed && results[1].details?["blockedBy"] == .string(missing.opId))
        #expect(results[2].status == .applied)
        let replay = try h.push1(blocked, by: People.ana)
        #expect(replay.code == .predecessorFailed && replay.replayed == true)
        #expect(try h.record("jobs", "j-404") == nil)
    }

    @Test("(i) 51 ops are VALIDATION_FAILED with details.field ops, and nothing is applied", arguments: Implementation.allCases)
    func tooManyOps(_ implementation: Implementation) throws {
        let h = try SyncSubject(implementation)
        let before = try h.snapshot()
        let ops = (1...51).map { h.ops.op(People.ana, .create, "jobs", "j-\($0)", ["title": "t"]) }

        #expect { try h.push(ops, by: People.ana) } throws: {
            ($0 as? SyncError)?.code == .validationFailed && ($0 as? SyncError)?.details?["field"] == "ops"
        }

        let after = try h.snapshot()
        #expect(after.newServerSeq == before.newServerSeq && after.changes.isEmpty)
        #expect(try h.opLog(People.ana, ops.map(\.opId)).isEmpty)
    }

    @Test("(j) the same opId with a different body is IDEMPOTENCY_KEY_REUSED and changes nothing", arguments: Implementation.allCases)
    func opIdReused(_ implementation: Implementation) throws {
        let h = try SyncSubject(implementation)
        let original = h.ops.op(People.ana, .create, "jobs", "j-1", ["title": "Boiler"])
        let first = try h.push1(original, by: People.ana)
        var altered = original
        altered.fields?["title"] = FieldChange(new: "Pump")
        let before = try h.snapshot()

        let reused = try h.push1(altered, by: People.ana)

        #expect(reused.status == .rejected && reused.code == .idempotencyKeyReused && reused.serverSeq == nil)
        let after = try h.snapshot()
        #expect(after.newServerSeq == before.newServerSeq && after.changes == before.changes)
        #expect(try h.record("jobs", "j-1")?.payload["title"] == "Boiler")
        #expect(try h.push1(original, by: People.ana).serverSeq == first.serverSeq, "the original result is still stored")
    }
}
