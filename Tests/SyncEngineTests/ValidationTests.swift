import Foundation
import SyncEngine
import SyncEngineTesting
import SyncProtocol
import Testing

@Suite("Rule 4 validation and rule 5 schema version")
struct ValidationTests {
    @Test("Rule 4: UNKNOWN_COLLECTION is checked before anything else")
    func unknownCollectionFirst() throws {
        var h = try Harness()
        let result = try h.push1(h.ops.op(People.ana, .create, "trucks", "t-1", ["bogus": 1]), by: People.ana)
        #expect(result.status == .rejected && result.code == .unknownCollection)
    }

    @Test("Rule 4: UNKNOWN_FIELD comes before type errors and names the field")
    func unknownFieldBeforeType() throws {
        var h = try Harness()
        let result = try h.push1(h.ops.op(People.ana, .create, "jobs", "j-1", ["title": 5, "colour": "red"]), by: People.ana)
        #expect(result.status == .rejected && result.code == .unknownField && result.details?["field"] == "colour")
    }

    @Test("Rule 4: VALIDATION_FAILED for a wrong type comes before FIELD_READ_ONLY and names the field")
    func typeBeforeReadOnly() throws {
        var h = try Harness()
        let op = h.ops.op(
            People.ana, .create, "orders", "o-1", ["customerId": "c", "lines": [["sku": "A", "qty": 1]], "note": 7, "rejectionReason": "x"])
        let result = try h.push1(op, by: People.ana)
        #expect(result.code == .validationFailed && result.details?["field"] == "note")
    }

    @Test("Rule 4: a missing required field on create is VALIDATION_FAILED naming it")
    func requiredOnCreate() throws {
        var h = try Harness()
        let result = try h.push1(h.ops.op(People.ana, .create, "part_usage", "p-1", ["job_id": "j", "sku": "s"]), by: People.ana)
        #expect(result.code == .validationFailed && result.details?["field"] == "qty")
        let nested = try h.push1(
            h.ops.op(People.ana, .create, "orders", "o-1", ["customerId": "c", "lines": [["sku": "A", "qty": 0]]]), by: People.ana)
        #expect(nested.code == .validationFailed && nested.details?["field"] == "lines" && nested.details?["path"] == "lines[0].qty")
        let below = try h.push1(h.ops.op(People.ana, .create, "jobs", "j-1", ["title": "t", "labor_minutes": -1]), by: People.ana)
        #expect(below.code == .validationFailed && below.details?["field"] == "labor_minutes")
    }

    @Test("Rule 4: a malformed occurredAt is VALIDATION_FAILED on occurredAt")
    func malformedOccurredAt() throws {
        var h = try Harness()
        let result = try h.push1(h.ops.op(People.ana, .create, "jobs", "j-1", ["title": "t"], occurredAt: "yesterday"), by: People.ana)
        #expect(result.code == .validationFailed && result.details?["field"] == "occurredAt")
    }

    @Test("Rule 4: FIELD_READ_ONLY for server-owned fields comes before OUT_OF_SCOPE")
    func readOnlyBeforeScope() throws {
        var h = try Harness()
        let op = h.ops.op(
            People.ana, .create, "orders", "o-1",
            [
                "customerId": "c", "lines": [["sku": "A", "qty": 1]], "status": "CONFIRMED",
                "assigneeId": "u-carla", "teamId": "t-2",
            ])
        let result = try h.push1(op, by: People.ana)
        #expect(result.code == .fieldReadOnly && result.details?["field"] == "status")
    }

    @Test("Rule 4: a field device writing assignments gets FIELD_READ_ONLY; a supervisor writes nothing")
    func collectionWriteRoles() throws {
        var h = try Harness()
        let result = try h.push1(h.ops.op(People.ana, .create, "assignments", "a-1", ["title": "Inspect"]), by: People.ana)
        #expect(result.code == .fieldReadOnly && result.details?["field"] == "title")
        let supervisor = try h.push1(h.ops.op(People.sam, .create, "jobs", "j-1", ["title": "t"]), by: People.sam)
        #expect(supervisor.code == .fieldReadOnly)
        let dispatcher = try h.push1(
            h.ops.op(People.dora, .create, "assignments", "a-1", ["title": "Inspect", "assigneeId": "u-ana"]), by: People.dora)
        #expect(dispatcher.status == .applied)
        let delete = try h.push1(h.ops.op(People.ana, .delete, "assignments", "a-1", base: dispatcher.serverSeq), by: People.ana)
        #expect(delete.code == .fieldReadOnly && delete.details?["collection"] == "assignments")
    }

    @Test("Rule 4: a create repeating a server-owned default is accepted (orders sent as SUBMITTED)")
    func serverOwnedDefault() throws {
        var h = try Harness()
        let op = h.ops.op(People.ana, .create, "orders", "o-1", ["customerId": "c", "lines": [["sku": "A", "qty": 1]], "status": "SUBMITTED"])
        #expect(try h.push1(op, by: People.ana).status == .applied)
    }

    @Test("Rule 4: OUT_OF_SCOPE comes before OCCURRED_AT_OUT_OF_RANGE")
    func scopeBeforeOccurredAt() throws {
        var h = try Harness()
        let op = h.ops.op(
            People.ana, .create, "jobs", "j-1", ["title": "t", "teamId": "t-2", "assigneeId": "u-carla"], occurredAt: h.clock.stamp(3600))
        #expect(try h.push1(op, by: People.ana).code == .outOfScope)
    }

    @Test("Rule 4: occurredAt more than 5 minutes ahead or older than 30 days is OCCURRED_AT_OUT_OF_RANGE")
    func occurredAtWindow() throws {
        var h = try Harness()
        let cases: [(TimeInterval, OpStatus)] = [(301, .rejected), (240, .applied), (-29 * 86_400, .applied), (-31 * 86_400, .rejected)]
        for (index, (offset, status)) in cases.enumerated() {
            let op = h.ops.op(People.ana, .create, "jobs", "j-\(index)", ["title": "t"], occurredAt: h.clock.stamp(offset))
            let result = try h.push1(op, by: People.ana)
            #expect(result.status == status, "offset \(offset)")
            if status == .rejected { #expect(result.code == .occurredAtOutOfRange) }
        }
    }

    @Test("Rule 4: the occurredAt window is configurable")
    func configurableWindow() throws {
        var h = try Harness(configuration: SyncConfiguration(occurredAtWindow: 3600))
        let op = h.ops.op(People.ana, .create, "jobs", "j-1", ["title": "t"], occurredAt: h.clock.stamp(-7200))
        #expect(try h.push1(op, by: People.ana).code == .occurredAtOutOfRange)
    }

    @Test("More than maxOpsPerPush ops is VALIDATION_FAILED on ops and nothing is applied")
    func tooManyOps() throws {
        var h = try Harness()
        let ops = (1...51).map { h.ops.op(People.ana, .create, "jobs", "j-\($0)", ["title": "t"]) }
        #expect(throws: SyncError.validation("ops", "at most 50 ops per push")) { try h.push(ops, by: People.ana) }
        #expect(h.state.records.isEmpty)
        #expect(h.state.opLog.isEmpty)
    }

    @Test("Malformed ids, duplicate op ids and duplicate clientSeqs fail the whole request naming the op")
    func requestShape() throws {
        var h = try Harness()
        let good = h.ops.op(People.ana, .create, "jobs", "j-1", ["title": "t"])
        var badId = good
        badId.recordId = "has space"
        var zero = good
        zero.clientSeq = 0
        var again = good
        again.clientSeq = 9
        let cases: [([PushOp], String)] = [([badId], "ops[0].recordId"), ([zero], "ops[0].clientSeq"), ([good, again], "ops[1].opId")]
        for (ops, field) in cases {
            #expect(throws: SyncError.self) { try h.push(ops, by: People.ana) }
            do { try h.push(ops, by: People.ana) } catch let error as SyncError { #expect(error.details?["field"] == .string(field)) }
        }
        let wrongDevice = PushRequest(deviceId: "dev-other", schemaVersion: 3, ops: [good])
        #expect(throws: SyncError.self) { try h.service.push(wrongDevice, by: People.ana) }
    }

    @Test("Rule 5: a v2 payload is migrated on accept (laborMinutes becomes labor_minutes)")
    func migrationOnAccept() throws {
        var h = try Harness()
        let create = try h.push1(
            h.ops.op(People.ana, .create, "jobs", "j-1", ["title": "Boiler", "laborMinutes": 30]), by: People.ana, schemaVersion: 2)
        #expect(create.status == .applied)
        let update = try h.push1(
            h.ops.op(People.ana, .update, "jobs", "j-1", ["status": "paused"], base: create.serverSeq), by: People.ana, schemaVersion: 1)
        #expect(update.status == .applied)
        let job = try #require(h.record("jobs", "j-1"))
        #expect(job.payload["labor_minutes"] == 30 && job.payload["laborMinutes"] == nil && job.payload["status"] == "on_hold")
        #expect(job.schemaVersion == 3)
    }

    @Test("Rule 5: a schema version without a migration path is SCHEMA_UNSUPPORTED")
    func schemaUnsupported() throws {
        var h = try Harness()
        for version in [0, 4] {
            let result = try h.push1(h.ops.op(People.ana, .create, "jobs", "j-\(version)", ["title": "t"]), by: People.ana, schemaVersion: version)
            #expect(result.status == .rejected && result.code == .schemaUnsupported)
        }
    }
}
