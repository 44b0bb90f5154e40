import AppTesting
import Foundation
import Postgres
import SyncEngine
import SyncProtocol
import Testing

/// `POST /v1/reports/sync` and `GET /v1/assignments` over real HTTP (PROTOCOL.md "Inspection reports").
@Suite("Report contract", .serialized)
struct ReportContractTests {
    @Test("A new report is ACCEPTED with a serverId and revision; the same localId again answers the same, with one record")
    func acceptedAndIdempotent() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let ana = try await server.device(.field)

        let first = try await ana.syncReports([SyncDevice.report("local-1", answers: ["pressure": .int(7)])])
        let again = try await ana.syncReports([SyncDevice.report("local-1", answers: ["pressure": .int(7)])])

        #expect(first[0]["status"]?.stringValue == "ACCEPTED")
        let serverId = try #require(first[0]["serverId"]?.stringValue)
        let revision = try #require(first[0]["revision"]?.intValue)
        #expect(again[0] == first[0])
        let stored = try #require(try server.storedRecord("reports", serverId))
        #expect(stored.serverSeq == revision)
        #expect(stored.payload["answers"] == ["pressure": .int(7)])
        #expect(stored.payload["assignmentId"]?.stringValue == "as-1")
        #expect(try server.scalar("SELECT count(*) FROM records WHERE collection = 'reports'") == 1)
    }

    @Test("U+0000, which the database cannot store, anywhere in a report is 400 VALIDATION_FAILED naming where, and nothing is stored")
    func rejectsUnstorableText() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device(.field)
        let text = "a\u{0}b"
        let hostile: [(JSONValue, String)] = [
            (SyncDevice.report("local-2", assignmentId: text), "reports[1].assignmentId"),
            (SyncDevice.report("local-2", serverId: text), "reports[1].serverId"),
            (SyncDevice.report("local-2", answers: ["note": ["nested": .string(text)]]), "reports[1].payload"),
            (SyncDevice.report("local-2", answers: [text: .bool(true)]), "reports[1].payload"),
        ]

        for (report, field) in hostile {
            let response = try await ana.sendReports([SyncDevice.report("local-1"), report])

            #expect(response.status == 400, "\(field)")
            let envelope = try response.errorEnvelope()
            #expect(envelope.error.code == .validationFailed, "\(field)")
            #expect(envelope.error.details?["field"] == .string(field))
        }
        #expect(try server.scalar("SELECT count(*) FROM records WHERE collection = 'reports'") == 0)
        #expect(try await ana.syncReports([SyncDevice.report("local-1")])[0]["status"]?.stringValue == "ACCEPTED")
    }

    @Test("An interrupted upload retried, also concurrently, leaves exactly one server report per localId")
    func interruptedRetry() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let ana = try await server.device(.field)
        let reports = [SyncDevice.report("local-a"), SyncDevice.report("local-b")]

        async let one = ana.syncReports(reports)
        async let two = ana.syncReports(reports)
        let (first, second) = try await (one, two)
        let third = try await ana.syncReports(reports + [SyncDevice.report("local-c")])

        #expect(first == second)
        #expect(Array(third.prefix(2)) == first)
        #expect(third.allSatisfy { $0["status"]?.stringValue == "ACCEPTED" })
        #expect(try server.scalar("SELECT count(*) FROM records WHERE collection = 'reports'") == 3)
    }

    @Test("A report the office changed since baseRevision is a CONFLICT with the server payload; nothing is overwritten")
    func conflict() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let ana = try await server.device(.field)
        let office = try await server.device(.dispatcher)
        let accepted = try await ana.syncReports([SyncDevice.report("local-1", answers: ["note": .string("first")])])[0]
        let serverId = try #require(accepted["serverId"]?.stringValue)
        let base = try #require(accepted["revision"]?.intValue)
        let officeSeq = try await office.applied(office.update("reports", serverId, ["answers": ["note": .string("office")]], base: base))

        let edited = SyncDevice.report("local-1", answers: ["note": .string("device")], serverId: serverId, baseRevision: base)
        let result = try await ana.syncReports([edited])[0]

        #expect(result["status"]?.stringValue == "CONFLICT")
        #expect(result["serverId"]?.stringValue == serverId)
        #expect(try #require(result["revision"]?.intValue) >= officeSeq)
        #expect(result["serverPayload"]?["answers"] == ["note": .string("office")])
        #expect(try server.storedRecord("reports", serverId)?.payload["answers"] == ["note": .string("office")])

        // The inspector keeps the local revision: re-sent on the refreshed base, it is accepted.
        let rebased = SyncDevice.report(
            "local-1", answers: ["note": .string("device")], serverId: serverId, baseRevision: result["revision"]?.intValue)
        let kept = try await ana.syncReports([rebased])[0]
        #expect(kept["status"]?.stringValue == "ACCEPTED", "\(kept)")
        #expect(try server.storedRecord("reports", serverId)?.payload["answers"] == ["note": .string("device")])
    }

    @Test("Invalid or out-of-scope reports are REJECTED with the protocol code, and the rest of the batch is ACCEPTED")
    func rejected() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let ana = try await server.device(.field, team: "north")
        let ben = try await server.device(.field, team: "south")
        let anas = try await ana.syncReports([SyncDevice.report("local-1")])[0]
        let serverId = try #require(anas["serverId"]?.stringValue)

        let results = try await ben.syncReports([
            SyncDevice.report("bad id"), SyncDevice.report("local-2", serverId: serverId, baseRevision: anas["revision"]?.intValue),
            SyncDevice.report("local-3"),
        ])

        #expect(results.map { $0["status"]?.stringValue } == ["REJECTED", "REJECTED", "ACCEPTED"])
        #expect(results[0]["errorCode"]?.stringValue == "VALIDATION_FAILED")
        #expect(results[1]["errorCode"]?.stringValue == "OUT_OF_SCOPE")
        #expect(results[1]["serverId"] == nil)
        let tooMany = try await ben.sendReports((1...51).map { SyncDevice.report("many-\($0)") })
        #expect(tooMany.status == 400)
        #expect(try tooMany.json()["error"]?["details"]?["field"]?.stringValue == "reports")
    }

    @Test("GET /v1/assignments lists the caller's visible assignments after since, ascending, with the revision to pass next")
    func assignmentsSince() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let ana = try await server.device(.field, team: "north")
        let office = try await server.device(.dispatcher)
        let mine = ["title": JSONValue.string("Boiler"), "assigneeId": .string(ana.user.id)]
        _ = try await office.applied(office.create("assignments", "as-1", mine))
        _ = try await office.applied(office.create("assignments", "as-other", ["title": .string("Elsewhere"), "teamId": .string("south")]))
        let second = try await office.applied(office.create("assignments", "as-2", mine))

        let all = try await ana.assignments()
        let revision = try #require(all["revision"]?.intValue)
        let none = try await ana.assignments(since: revision)
        let changed = try await office.applied(office.update("assignments", "as-1", ["status": .string("done")], base: nil))
        let later = try await ana.assignments(since: revision)

        #expect(all["assignments"]?.arrayValue?.compactMap { $0["assignmentId"]?.stringValue } == ["as-1", "as-2"])
        #expect(revision == second)
        #expect(none["assignments"]?.arrayValue == [])
        #expect(none["revision"]?.intValue == revision)
        #expect(later["assignments"]?.arrayValue?.map { $0["assignmentId"]?.stringValue } == ["as-1"])
        #expect(later["revision"]?.intValue == changed)
        #expect(later["minSupportedAppVersion"]?.stringValue != nil)
    }

    @Test("The contract passes auth and the sync gate: 401 without a token, 503 in maintenance, 426 below the hard minimum")
    func gated() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let ana = try await server.device(.field, appVersion: "2.1.0")
        let anonymous = try await server.client.post("/v1/reports/sync", json: ["reports": JSONValue.array([])], headers: ana.headers)
        try server.updateSettings { $0.maintenanceMode = true }
        let maintenance = try await ana.sendReports([SyncDevice.report("local-1")])
        try server.updateSettings {
            $0.maintenanceMode = false
            $0.hardMinimumAppVersion = "2.2.0"
        }
        let upgrade = try await ana.sendReports([SyncDevice.report("local-1")])

        #expect(anonymous.status == 401)
        #expect(maintenance.status == 503 && maintenance.header("Retry-After") != nil)
        #expect(upgrade.status == 426)
        #expect(try server.scalar("SELECT count(*) FROM records WHERE collection = 'reports'") == 0)
    }

    @Test("Reports go through while a push holds ops behind a clientSeq gap that never fills")
    func reportsPassADeferredGap() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device(.field)
        let held = try await ana.push1(ana.op(.create, "jobs", "job-1", ["title": "t"], seq: 5))
        #expect(held.status == .deferred && held.code == .awaitingPredecessor, "\(held)")

        let first = try await ana.syncReports([SyncDevice.report("local-1")])
        let second = try await ana.syncReports([SyncDevice.report("local-2")])

        #expect(first[0]["status"] == "ACCEPTED" && second[0]["status"] == "ACCEPTED", "\(first) \(second)")
        #expect(try server.scalar("SELECT count(*) FROM records WHERE collection = 'reports'") == 2)
        #expect(try server.scalar("SELECT count(*) FROM records WHERE collection = 'jobs'") == 0, "the held op still waits for 3 and 4")
    }

    @Test("A serverId that breaks the id rule is answered REJECTED / VALIDATION_FAILED and stores nothing")
    func refusesMalformedServerId() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device(.field)

        let results = try await ana.syncReports([SyncDevice.report("local-1", serverId: "../x"), SyncDevice.report("local-2", serverId: "")])

        #expect(results.map { $0["status"] } == ["REJECTED", "REJECTED"], "\(results)")
        #expect(results.map { $0["errorCode"] } == ["VALIDATION_FAILED", "VALIDATION_FAILED"], "\(results)")
        #expect(try server.scalar("SELECT count(*) FROM records WHERE collection = 'reports'") == 0)
    }
}
