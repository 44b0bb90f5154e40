import AppTesting
import Foundation
import Postgres
import SyncProtocol
import Testing

/// The data-integrity matrix (a)–(j) of the sync engine issue, over HTTP against PostgreSQL.
/// (h) is `SyncPushOrderingTests.predecessorFailed`.
@Suite("Data-integrity matrix over HTTP")
struct SyncDataIntegrityMatrixTests {
    @Test("(a) a replayed applied op returns the same serverSeq and changes nothing")
    func replayChangesNothing() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device()
        let ops = [ana.create("jobs", "job-1", ["title": "Boiler"]), ana.update("jobs", "job-1", ["notes": "valve"], base: nil)]
        let first = try await ana.push(ops)
        let counts = try server.syncTableCounts()
        let record = try server.storedRecord("jobs", "job-1")

        let again = try await ana.pushResponse(ops)

        #expect(again.results.map(\.serverSeq) == first.map(\.serverSeq))
        #expect(again.results.allSatisfy { $0.status == .applied && $0.replayed == true })
        #expect(try server.syncTableCounts() == counts)
        #expect(try server.storedRecord("jobs", "job-1") == record)
    }

    @Test("(b) a part consumption acked by the server but not locally, re-sent after a relaunch, is applied once")
    func partUsageAppliedOnce() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device()
        let usage = ana.create("part_usage", "pu-1", ["job_id": "job-1", "sku": "VALVE-22", "qty": 2])
        let acked = try await ana.push1(usage)
        #expect(acked.status == .applied)

        // The response never reached the app; after the relaunch its queue holds the op and new work.
        let next = ana.create("part_usage", "pu-2", ["job_id": "job-1", "sku": "VALVE-22", "qty": 1])
        let relaunch = try await ana.push([usage, next])

        #expect(relaunch[0].replayed == true && relaunch[0].serverSeq == acked.serverSeq)
        #expect(relaunch[1].status == .applied && relaunch[1].replayed == nil)
        let pulled = Replica(try await ana.drain().changes)
        let consumed = pulled.records.values.filter { $0["sku"] == "VALVE-22" }.compactMap { $0["qty"]?.intValue }
        #expect(consumed.reduce(0, +) == 3)
        #expect(try server.scalar("SELECT count(*) FROM records WHERE collection = 'part_usage'") == 2)
        #expect(try server.scalar("SELECT count(*) FROM op_log WHERE op_id = \(usage.opId)") == 1)
    }

    @Test("(c) an op against a record another device deleted is RECORD_DELETED with the tombstone seq; no resurrection")
    func deletedByOtherDevice() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device()
        let ben = try await server.device()
        let base = try await ana.applied(ana.create("jobs", "job-1", ["title": "Boiler"]))
        let synced = try await ana.drain().cursor
        let deleted = try await ben.applied(ben.delete("jobs", "job-1", base: base))

        let results = try await ana.pushEach([
            ana.update("jobs", "job-1", ["notes": "still here?"], base: base), ana.create("jobs", "job-1", ["title": "Again"]),
        ])

        for result in results {
            #expect(result.status == .rejected && result.code == .recordDeleted && result.tombstoneSeq == deleted)
        }
        let stored = try #require(try server.storedRecord("jobs", "job-1"))
        #expect(stored.deletedSeq == deleted && stored.serverSeq == deleted && stored.payload["notes"] == nil)
        let change = try await ana.drain(from: synced).last("jobs", "job-1")
        #expect(change?.type == .delete && change?.tombstone?.deletedServerSeq == deleted)
    }

    @Test("(d) two devices set jobs.status from one base: same final value in both push orders; the loser sees both values")
    func statusInBothOrders() async throws {
        var finals: [JSONValue?] = []
        for holdFirst in [true, false] {
            let server = try await TestServer.startSync()
            defer { server.finish() }
            let ana = try await server.device()
            let ben = try await server.device()
            let base = try await ana.applied(ana.create("jobs", "job-1", ["title": "Boiler", "status": "in_progress"]))
            let hold = ana.update("jobs", "job-1", ["status": "on_hold"], base: base, old: ["status": "in_progress"])
            let complete = ben.update("jobs", "job-1", ["status": "complete"], base: base, old: ["status": "in_progress"])
            if holdFirst {
                let holdSeq = try await ana.applied(hold)
                let loser = try await ben.push1(complete)
                #expect(loser.status == .conflict && loser.code == .fieldConflict)
                #expect(
                    loser.conflicts == [
                        FieldConflict(
                            field: "status", clientOld: "in_progress", clientNew: "complete", serverCurrent: "on_hold", serverSeq: holdSeq,
                            winner: .server)
                    ])
            } else {
                let completeSeq = try await ben.applied(complete)
                let winner = try await ana.push1(hold)
                #expect(winner.status == .applied)
                #expect(
                    winner.conflicts == [
                        FieldConflict(
                            field: "status", clientOld: "in_progress", clientNew: "on_hold", serverCurrent: "complete",
                            serverSeq: completeSeq, winner: .client)
                    ])
                // The overwritten device learns it from its next pull.
                #expect(try await ben.drain().last("jobs", "job-1")?.payload?["status"] == "on_hold")
            }
            let job = try #require(try server.storedRecord("jobs", "job-1"))
            #expect(job.conflictId == nil)
            finals.append(job.payload["status"])
        }
        #expect(finals == ["on_hold", "on_hold"])
    }

    @Test("(e) labor_minutes from one device and notes from another, same base: both survive, no conflict")
    func disjointFieldsMerge() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device()
        let ben = try await server.device()
        let base = try await ana.applied(ana.create("jobs", "job-1", ["title": "Boiler", "labor_minutes": 90]))

        let labor = try await ana.push1(ana.update("jobs", "job-1", ["labor_minutes": 135], base: base, old: ["labor_minutes": 90]))
        let notes = try await ben.push1(ben.update("jobs", "job-1", ["notes": "valve replaced"], base: base))

        #expect(labor.status == .applied && notes.status == .applied && labor.conflicts == nil && notes.conflicts == nil)
        let change = try #require(try await ben.drain().last("jobs", "job-1"))
        #expect(change.payload?["labor_minutes"] == 135 && change.payload?["notes"] == "valve replaced")
        #expect(change.fieldMeta?["labor_minutes"]?.deviceId == ana.deviceId && change.fieldMeta?["notes"]?.deviceId == ben.deviceId)
        #expect(try server.scalar("SELECT count(*) FROM conflicts") == 0)
    }

    @Test("(f) two batches of one device arriving reversed end in the same state as in order")
    func reversedBatches() async throws {
        var payloads: [Values] = []
        for reversed in [false, true] {
            let server = try await TestServer.startSync()
            defer { server.finish() }
            let ana = try await server.device()
            let batch1 = [
                ana.create("jobs", "job-1", ["title": "Boiler", "status": "in_progress"]),
                ana.update("jobs", "job-1", ["notes": "one"], base: nil),
            ]
            let batch2 = [
                ana.update("jobs", "job-1", ["labor_minutes": 30, "notes": "two"], base: nil),
                ana.update("jobs", "job-1", ["status": "complete"], base: nil),
            ]
            if reversed {
                #expect(try await ana.push(batch2).allSatisfy { $0.code == .awaitingPredecessor })
                #expect(try await ana.push(batch1).allSatisfy { $0.status == .applied })
                #expect(try await ana.push(batch2).allSatisfy { $0.status == .applied && $0.replayed == true })
            } else {
                #expect(try await ana.push(batch1 + batch2).allSatisfy { $0.status == .applied })
            }
            var payload = try #require(try server.storedRecord("jobs", "job-1")).payload
            payload["assigneeId"] = nil  // a different user on each database
            payloads.append(payload)
        }
        #expect(payloads[0] == payloads[1])
        #expect(payloads[0] == ["title": "Boiler", "status": "complete", "notes": "two", "labor_minutes": 30, "teamId": "team-1"])
    }

    @Test("(g) paging from a cursor far behind returns every change exactly once, the cursor strictly advancing")
    func pagingFarBehind() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device()
        let start = try await ana.drain().cursor
        var seqs: [String: Int64] = [:]
        let creates = (1...45).map { ana.create("jobs", "job-\($0)", ["title": .string("job \($0)")]) }
        for (index, result) in try await ana.push(creates).enumerated() { seqs["job-\(index + 1)"] = result.serverSeq }
        let updates = stride(from: 1, through: 45, by: 3).map {
            ana.update("jobs", "job-\($0)", ["notes": "again"], base: seqs["job-\($0)"])
        }
        let deletes = stride(from: 2, through: 45, by: 5).map { ana.delete("jobs", "job-\($0)", base: seqs["job-\($0)"]) }
        _ = try await ana.push(updates + deletes)

        let run = try await ana.drain(from: start, limit: 4)

        let seen = run.changes.map { Replica.key($0.collection, $0.recordId) }
        #expect(Set(seen).count == seen.count && seen.count == 45, "each record once, in its latest state")
        let ordered = run.changes.map(\.serverSeq)
        #expect(zip(ordered, ordered.dropFirst()).allSatisfy { $0 < $1 })
        #expect(run.pages.dropLast().allSatisfy { $0.changes.count == 4 && $0.hasMore })
        #expect(run.changes.filter { $0.type == .delete }.count == 9)
        #expect(Replica(run.changes) == Replica(try await ana.drain().changes))
    }

    @Test("(i) 51 ops are 400 VALIDATION_FAILED with details.field ops, and nothing is applied")
    func tooManyOps() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device()
        let counts = try server.syncTableCounts()

        let response = try await ana.send((1...51).map { ana.create("jobs", "job-\($0)", ["title": "t"]) })

        #expect(response.status == 400)
        let envelope = try response.errorEnvelope()
        #expect(envelope.error.code == .validationFailed && envelope.error.details?["field"] == "ops")
        #expect(try server.syncTableCounts() == counts)
    }

    @Test("(j) / rule 1: the same opId with a different body is IDEMPOTENCY_KEY_REUSED and changes nothing")
    func opIdReused() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device()
        let original = ana.create("jobs", "job-1", ["title": "Boiler"])
        let first = try await ana.push1(original)
        var altered = original
        altered.fields?["title"] = FieldChange(new: "Pump")
        let counts = try server.syncTableCounts()

        let reused = try await ana.push1(altered)

        #expect(reused.status == .rejected && reused.code == .idempotencyKeyReused && reused.serverSeq == nil)
        #expect(try server.syncTableCounts() == counts)
        #expect(try server.storedRecord("jobs", "job-1")?.payload["title"] == "Boiler")
        #expect(try await ana.push1(original).serverSeq == first.serverSeq, "the original result is still stored")
    }
}
