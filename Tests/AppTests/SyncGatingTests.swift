import AppTesting
import Foundation
import SyncEngine
import SyncProtocol
import Testing

/// PROTOCOL.md "Gating" on the sync calls, over HTTP: version fields, app version floors,
/// maintenance and the per-device rate limit.
@Suite("Sync gating over HTTP")
struct SyncGatingTests {
    @Test("Every push and pull body carries minSupportedAppVersion and serverSchemaVersion")
    func gatingFieldsInBodies() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device()
        try server.updateSettings { $0.minSupportedAppVersion = "2.1.0" }

        let push = try await ana.send([ana.create("jobs", "job-1", ["title": "t"])])
        let emptyPush = try await ana.send([])
        let pull = try await ana.pullResponse()

        for response in [push, emptyPush, pull] {
            #expect(response.status == 200)
            guard case .object(let body) = try response.json() else { throw TestServerError("not an object: \(response)") }
            #expect(body["minSupportedAppVersion"] == "2.1.0" && body["serverSchemaVersion"] == 3)
        }
        #expect(try push.decode(PushResponse.self).newServerSeq == 1)
    }

    @Test("An app below minSupportedAppVersion still pushes and pulls: its work is never stranded")
    func belowMinimumStillSyncs() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let old = try await server.device(appVersion: "1.4.0")

        let pushed = try await old.pushResponse([old.create("jobs", "job-1", ["title": "t"])])
        let pulled = try await old.pull()

        #expect(pushed.results.first?.status == .applied && pushed.minSupportedAppVersion == "2.0.0")
        #expect(pulled.changes.map(\.recordId) == ["job-1"])
    }

    @Test("An app below hardMinimumAppVersion gets 426 UPGRADE_REQUIRED on push and pull, and nothing is written")
    func belowHardMinimum() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let old = try await server.device(appVersion: "2.1.9")
        let current = try await server.device(appVersion: "2.2.0")
        try server.updateSettings { $0.hardMinimumAppVersion = "2.2.0" }
        let counts = try server.syncTableCounts()

        let push = try await old.send([old.create("jobs", "job-1", ["title": "t"])])
        let pull = try await old.pullResponse()

        for response in [push, pull] {
            #expect(response.status == 426 && response.errorCode == "UPGRADE_REQUIRED")
            #expect(try response.errorEnvelope().error.details?["minimumVersion"] == "2.2.0")
        }
        #expect(try server.syncTableCounts() == counts)
        #expect(try await current.push1(current.create("jobs", "job-2", ["title": "t"])).status == .applied)
    }

    @Test("With hardMinimumAppVersion set, an app whose X-App-Version cannot be read gets 426 too")
    func unreadableVersionBelowHardMinimum() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let unknown = try await server.device(appVersion: "beta")
        try server.updateSettings { $0.hardMinimumAppVersion = "2.2.0" }
        let push = try await unknown.send([unknown.create("jobs", "job-1", ["title": "t"])])
        #expect(push.status == 426 && push.errorCode == "UPGRADE_REQUIRED")
    }

    @Test("Maintenance answers 503 MAINTENANCE with Retry-After on push and pull; sync resumes when it ends")
    func maintenance() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device()
        try server.updateSettings {
            $0.maintenanceMode = true
            $0.maintenanceRetryAfterSeconds = 120
        }
        let counts = try server.syncTableCounts()

        let queued = ana.create("jobs", "job-1", ["title": "t"])
        let push = try await ana.send([queued])
        let pull = try await ana.pullResponse()

        for response in [push, pull] {
            #expect(response.status == 503 && response.errorCode == "MAINTENANCE")
            #expect(response.header("Retry-After") == "120")
        }
        #expect(try server.syncTableCounts() == counts)
        try server.updateSettings { $0.maintenanceMode = false }
        #expect(try await ana.push1(queued).status == .applied)
    }

    @Test("The gate is for sync calls only: in maintenance and below the emergency floor, config, conflicts and the roll-up still answer")
    func gateIsForSyncCallsOnly() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device(appVersion: "1.0.0")
        let supervisor = try await server.device(.supervisor)
        try server.updateSettings {
            $0.maintenanceMode = true
            $0.hardMinimumAppVersion = "2.0.0"
        }
        let headers = ["X-App-Version": "1.0.0", "X-Device-Id": ana.deviceId]

        #expect(try await server.client.get("/v1/config", headers: headers, token: ana.token).status == 200)
        #expect(try await server.client.get("/v1/conflicts", headers: headers, token: ana.token).status == 200)
        #expect(try await server.client.get("/v1/team/rollup", token: supervisor.token).status == 200)
        #expect(try await ana.pullResponse().errorCode == "MAINTENANCE")
    }

    @Test("Past its burst a device gets 429 RATE_LIMITED with Retry-After; other devices are not affected")
    func rateLimited() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device()
        let ben = try await server.device()
        try server.updateSettings {
            $0.deviceRequestsPerSecond = 1
            $0.deviceRequestBurst = 2
        }

        // Sent at once: however slow the machine, the bucket cannot refill between them.
        let push = ana.create("jobs", "job-1", ["title": "t"])
        let responses = try await withThrowingTaskGroup(of: TestResponse.self) { group in
            group.addTask { try await ana.send([push]) }
            for _ in 0..<5 { group.addTask { try await ana.pullResponse() } }
            return try await group.reduce(into: [TestResponse]()) { $0.append($1) }
        }

        let statuses = responses.map(\.status)
        #expect(statuses.filter { $0 == 200 }.count >= 2 && statuses.allSatisfy { $0 == 200 || $0 == 429 })
        let response = try #require(responses.first { $0.status == 429 })
        #expect(response.errorCode == "RATE_LIMITED")
        #expect(try #require(response.header("Retry-After").flatMap(Int.init)) >= 1)
        #expect(try await ben.pullResponse().status == 200)
    }

    @Test("maxOpsPerPush from the settings is the push limit in both directions, as GET /v1/config announces it")
    func configuredMaxOps() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device()
        try server.updateSettings { $0.maxOpsPerPush = 60 }
        let config = try await server.client.get("/v1/config", token: ana.token).decode(ConfigResponse.self)
        #expect(config.maxOpsPerPush == 60)

        let allowed = try await ana.send((1...60).map { ana.create("jobs", "job-\($0)", ["title": "t"]) })
        let over = try await ana.send((61...121).map { ana.create("jobs", "job-\($0)", ["title": "t"]) })
        try server.updateSettings { $0.maxOpsPerPush = 10 }
        let lowered = try await ana.send((61...71).map { ana.op(.create, "jobs", "job-\($0)", ["title": "t"], seq: Int64($0)) })

        #expect(allowed.status == 200)
        #expect(try allowed.decode(PushResponse.self).results.allSatisfy { $0.status == .applied })
        for response in [over, lowered] {
            #expect(response.status == 400)
            #expect(try response.errorEnvelope().error.details?["field"] == "ops")
        }
    }

    @Test("occurredAtWindowDays from the settings is the window of OCCURRED_AT_OUT_OF_RANGE")
    func configuredOccurredAtWindow() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device()
        func daysAgo(_ days: Double) -> String { RFC3339.string(from: Date().addingTimeInterval(-days * 86_400)) }
        try server.updateSettings { $0.occurredAtWindowDays = 7 }

        let short = try await ana.push([
            ana.op(.create, "jobs", "job-1", ["title": "t"], occurredAt: daysAgo(6)),
            ana.op(.create, "jobs", "job-2", ["title": "t"], occurredAt: daysAgo(8)),
        ])
        try server.updateSettings { $0.occurredAtWindowDays = 60 }
        let long = try await ana.push1(ana.op(.create, "jobs", "job-3", ["title": "t"], occurredAt: daysAgo(45)))

        #expect(short.map(\.code) == [nil, .occurredAtOutOfRange])
        #expect(long.status == .applied)
    }
}
