import AppTesting
import Foundation
import Postgres
import SyncEngine
import SyncProtocol
import Testing

/// PROTOCOL.md "Push", rules 4 (validation, in its order) and 5 (schema version), over HTTP.
@Suite("Push rules 4 and 5 over HTTP")
struct SyncPushValidationTests {
    @Test("Rule 4: an unknown collection is rejected UNKNOWN_COLLECTION")
    func unknownCollection() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device()

        let result = try await ana.push1(ana.create("invoices", "inv-1", ["title": "x"]))

        #expect(result.status == .rejected && result.code == .unknownCollection && result.recordId == "inv-1")
        #expect(try server.scalar("SELECT count(*) FROM records") == 0)
    }

    @Test("Rule 4: an unknown field is UNKNOWN_FIELD naming it, checked before types and write roles")
    func unknownField() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device()

        let results = try await ana.push([
            ana.create("jobs", "job-1", ["title": "Boiler", "colour": "red", "labor_minutes": "lots"]),
            ana.create("assignments", "as-1", ["title": "Inspect", "priority": 1]),
        ])

        #expect(results.map(\.code) == [.unknownField, .unknownField])
        #expect(results.map(\.status) == [.rejected, .rejected])
        #expect(results[0].details?["field"] == "colour" && results[1].details?["field"] == "priority")
        #expect(try server.scalar("SELECT count(*) FROM records") == 0)
    }

    /// Creates that break a field's type, bound, enum or requiredness, and the field named.
    private static let invalidCreates: [(String, Values, String)] = [
        ("jobs", ["title": "Boiler", "labor_minutes": "lots"], "labor_minutes"),
        ("jobs", ["title": "Boiler", "labor_minutes": -5], "labor_minutes"),
        ("jobs", ["title": "Boiler", "status": "paused"], "status"),
        ("jobs", ["labor_minutes": 5], "title"),
        ("jobs", ["title": 42], "title"),
        ("part_usage", ["job_id": "job-1", "sku": "VALVE", "qty": 0], "qty"),
        ("part_usage", ["job_id": "job-1", "sku": "VALVE", "qty": 1.5], "qty"),
        ("orders", ["customerId": "c-1", "lines": [["sku": "A", "qty": "two"]]], "lines"),
        ("orders", ["customerId": "c-1", "lines": []], "lines"),
        ("reports", ["assignmentId": "as-1", "answers": "yes"], "answers"),
        ("reports", ["assignmentId": "as-1", "answers": [:], "photos": ["not an id!"]], "photos"),
    ]

    @Test("Rule 4: a wrong type, bound, enum value or missing required field is VALIDATION_FAILED with details.field")
    func validationFailed() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device()

        let results = try await ana.pushEach(Self.invalidCreates.map { collection, values, _ in ana.create(collection, "rec-1", values) })

        for (result, (collection, values, field)) in zip(results, Self.invalidCreates) {
            #expect(result.status == .rejected && result.code == .validationFailed, "\(collection) \(values)")
            #expect(result.details?["field"] == .string(field), "\(collection) \(values)")
        }
        #expect(try server.scalar("SELECT count(*) FROM records") == 0)
    }

    @Test("Rule 4: a field device writing assignments is FIELD_READ_ONLY; a dispatcher may")
    func assignmentsReadOnlyForField() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device()
        let dora = try await server.device(.dispatcher, team: nil)
        let assigned = try await dora.applied(dora.create("assignments", "as-1", ["title": "Inspect", "assigneeId": .string(ana.user.id)]))

        let results = try await ana.pushEach([
            ana.create("assignments", "as-2", ["title": "Mine"]),
            ana.update("assignments", "as-1", ["status": "done"], base: assigned),
            ana.delete("assignments", "as-1", base: assigned),
        ])

        #expect(results.map(\.code) == [.fieldReadOnly, .fieldReadOnly, .fieldReadOnly])
        #expect(results[1].details?["field"] == "status")
        #expect(try server.storedRecord("assignments", "as-2") == nil)
        let stored = try #require(try server.storedRecord("assignments", "as-1"))
        #expect(stored.payload["status"] == "open" && stored.deletedSeq == nil)
    }

    @Test("Rule 4: orders.status is server-owned: FIELD_READ_ONLY unless it repeats the SUBMITTED default on create")
    func orderStatusReadOnly() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device()
        let lines: JSONValue = [["sku": "VALVE", "qty": 2]]
        let created = try await ana.applied(ana.create("orders", "ord-1", ["customerId": "c-1", "lines": lines, "status": "SUBMITTED"]))

        let results = try await ana.pushEach([
            ana.update("orders", "ord-1", ["status": "CONFIRMED"], base: created, old: ["status": "SUBMITTED"]),
            ana.create("orders", "ord-2", ["customerId": "c-1", "lines": lines, "status": "CONFIRMED"]),
            ana.update("orders", "ord-1", ["note": "ring twice", "rejectionReason": "none"], base: created),
        ])

        #expect(results.map(\.code) == [.fieldReadOnly, .fieldReadOnly, .fieldReadOnly])
        #expect(results.map { $0.details?["field"] } == ["status", "status", "rejectionReason"])
        let order = try #require(try server.storedRecord("orders", "ord-1"))
        #expect(order.payload["status"] == "SUBMITTED" && order.payload["note"] == nil)
    }

    @Test("Rule 4: a field device may not write another team's record, create outside its scope, or move a record out of it")
    func outOfScope() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device(team: "north")
        let carla = try await server.device(team: "south")
        let southJob = try await carla.applied(carla.create("jobs", "job-south", ["title": "Pump"]))
        let anaJob = try await ana.applied(ana.create("jobs", "job-north", ["title": "Boiler"]))

        let results = try await ana.pushEach([
            ana.update("jobs", "job-south", ["notes": "peek"], base: southJob),
            ana.create("jobs", "job-x", ["title": "Elsewhere", "teamId": "south"]),
            ana.create("jobs", "job-y", ["title": "For carla", "assigneeId": .string(carla.user.id)]),
            ana.update("jobs", "job-north", ["teamId": "south", "assigneeId": .string(carla.user.id)], base: anaJob),
            ana.delete("jobs", "job-south", base: southJob),
        ])

        #expect(results.allSatisfy { $0.status == .rejected && $0.code == .outOfScope })
        #expect(try server.storedRecord("jobs", "job-south")?.payload["notes"] == nil)
        #expect(try server.storedRecord("jobs", "job-south")?.deletedSeq == nil)
        #expect(try server.storedRecord("jobs", "job-x") == nil && server.storedRecord("jobs", "job-y") == nil)
        #expect(try server.storedRecord("jobs", "job-north")?.payload["teamId"] == "north")
    }

    @Test("Rule 4: occurredAt more than 5 minutes ahead or older than 30 days is OCCURRED_AT_OUT_OF_RANGE")
    func occurredAtOutOfRange() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device()
        func at(_ offset: TimeInterval) -> String { RFC3339.string(from: Date().addingTimeInterval(offset)) }

        let results = try await ana.push([
            ana.op(.create, "jobs", "job-future", ["title": "a"], occurredAt: at(10 * 60)),
            ana.op(.create, "jobs", "job-old", ["title": "b"], occurredAt: at(-31 * 86_400)),
            ana.op(.create, "jobs", "job-soon", ["title": "c"], occurredAt: at(4 * 60)),
            ana.op(.create, "jobs", "job-weeks", ["title": "d"], occurredAt: at(-29 * 86_400)),
            ana.op(.create, "jobs", "job-bad", ["title": "e"], occurredAt: "yesterday"),
        ])

        #expect(results.map(\.code) == [.occurredAtOutOfRange, .occurredAtOutOfRange, nil, nil, .validationFailed])
        #expect(results[4].details?["field"] == "occurredAt")
        #expect(try server.scalar("SELECT count(*) FROM records") == 2)
    }

    @Test("Rule 5: a schemaVersion 1 or 2 payload is migrated on accept (renames, value maps, dropped fields)")
    func olderSchemaMigrated() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device()

        let v1 = try await ana.push1(
            ana.create("jobs", "job-1", ["title": "Boiler", "status": "started", "legacyCode": "X9"]), schemaVersion: 1)
        let v2 = try await ana.push(
            [
                ana.update("jobs", "job-1", ["laborMinutes": 45], base: v1.serverSeq),
                ana.create("reports", "rep-1", ["assignmentId": "as-1", "answers": ["ok": true], "photoIds": ["att-1"]]),
            ], schemaVersion: 2)

        #expect(v1.status == .applied && v2.allSatisfy { $0.status == .applied })
        let job = try #require(try server.storedRecord("jobs", "job-1"))
        #expect(job.payload["status"] == "in_progress" && job.payload["labor_minutes"] == 45)
        #expect(job.payload["legacyCode"] == nil && job.payload["laborMinutes"] == nil)
        #expect(try server.storedRecord("reports", "rep-1")?.payload["photos"] == ["att-1"])
        let pulled = try await ana.drain()
        #expect(pulled.last("jobs", "job-1")?.schemaVersion == 3)
    }

    @Test("Rule 5: a schemaVersion with no migration path (older than supported, or newer) is SCHEMA_UNSUPPORTED")
    func schemaUnsupported() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device()

        let old = try await ana.push1(ana.create("jobs", "job-1", ["title": "Boiler"]), schemaVersion: 0)
        let future = try await ana.push1(ana.create("jobs", "job-2", ["title": "Pump"]), schemaVersion: 4)

        #expect(old.status == .rejected && old.code == .schemaUnsupported)
        #expect(future.status == .rejected && future.code == .schemaUnsupported)
        #expect(try server.scalar("SELECT count(*) FROM records") == 0)
    }
}
