import App
import AppTesting
import Foundation
import Postgres
import Storage
import SyncEngine
import SyncProtocol
import Testing

/// Report apps' calls are device syncs like a push and a pull (sync centre, roll-up, devices synced today).
@Suite("Report contract: device syncs", .serialized)
struct ReportContractVisitTests {
    /// `POST /v1/reports/sync` as the contract's apps send it: the version in the body, no `X-App-Version`.
    static func sendWithoutHeader(_ device: SyncDevice, appVersion: JSONValue, reports: [JSONValue]) async throws -> TestResponse {
        let body: JSONValue = ["deviceId": .string(device.deviceId), "appVersion": appVersion, "schemaVersion": .int(3), "reports": .array(reports)]
        return try await device.server.client.post("/v1/reports/sync", json: body, headers: ["X-Device-Id": device.deviceId], token: device.token)
    }

    static func syncedKinds(_ server: TestServer, _ deviceId: String) throws -> [String] {
        try server.core.database.withConnection { connection in
            try connection.query(
                """
                SELECT data->>'kind' FROM events WHERE type = 'device.synced' AND data->>'deviceId' = \(deviceId) ORDER BY id
                """
            ).map { try $0.decode(0, as: String.self) }
        }
    }

    @Test("A report sync and an assignments read are recorded like push and pull, with user, team and the body's app version")
    func recorded() async throws {
        let server = try await TestServer.start { $0.runsWorker = false }
        defer { server.stop() }
        let ana = try await server.device(.field, team: "north", appVersion: "2.3.0")
        let centre = PostgresSyncCentreStore(database: server.core.database)
        #expect(try centre.device(id: ana.deviceId)?.lastSyncAt == nil)

        let response = try await Self.sendWithoutHeader(ana, appVersion: "3.1.0", reports: [SyncDevice.report("local-1")])
        #expect(response.status == 200, "\(response)")
        let afterReports = try #require(try centre.device(id: ana.deviceId))
        #expect(afterReports.userId == ana.user.id && afterReports.teamId == "north" && afterReports.appVersion == "3.1.0")
        #expect(afterReports.lastSyncAt != nil)

        _ = try await ana.assignments()
        #expect(try centre.device(id: ana.deviceId)?.appVersion == "2.3.0", "the header, when sent, is the version")
        #expect(try Self.syncedKinds(server, ana.deviceId) == ["push", "pull"])
        let counts = try centre.appVersionCounts(teamId: "north")
        #expect(counts.map(\.version) == ["2.3.0"] && counts.map(\.count) == [1])
    }

    @Test("A body appVersion too long or holding U+0000 is 400 VALIDATION_FAILED on appVersion, and nothing is stored or recorded")
    func hostileAppVersion() async throws {
        let server = try await TestServer.start { $0.runsWorker = false }
        defer { server.stop() }
        let ana = try await server.device(.field)
        for version in [String(repeating: "9", count: 65), "2.\u{0}1"] {
            let response = try await Self.sendWithoutHeader(ana, appVersion: .string(version), reports: [SyncDevice.report("local-1")])
            #expect(response.status == 400, "\(response)")
            let envelope = try response.errorEnvelope()
            #expect(envelope.error.code == .validationFailed && envelope.error.details?["field"] == .string("appVersion"))
        }
        let wrongType = try await Self.sendWithoutHeader(ana, appVersion: .int(3), reports: [SyncDevice.report("local-1")])
        #expect(wrongType.status == 400, "\(wrongType)")
        #expect(try server.scalar("SELECT count(*) FROM records WHERE collection = 'reports'") == 0)
        #expect(try Self.syncedKinds(server, ana.deviceId).isEmpty)
    }

    @Test("With an emergency minimum set, a report sync is gated on the body's appVersion when no X-App-Version is sent")
    func emergencyMinimumReadsBodyVersion() async throws {
        let server = try await TestServer.start { $0.runsWorker = false }
        defer { server.stop() }
        let ana = try await server.device(.field)
        try server.updateSettings { $0.hardMinimumAppVersion = "3.0.0" }

        let current = try await Self.sendWithoutHeader(ana, appVersion: "3.1.0", reports: [SyncDevice.report("local-1")])
        #expect(current.status == 200, "\(current)")
        let old = try await Self.sendWithoutHeader(ana, appVersion: "2.9.0", reports: [SyncDevice.report("local-2")])
        #expect(old.status == 426 && old.errorCode == "UPGRADE_REQUIRED", "\(old)")
        let unreadable = try await Self.sendWithoutHeader(ana, appVersion: "beta", reports: [SyncDevice.report("local-3")])
        #expect(unreadable.status == 426, "\(unreadable)")
        #expect(try server.scalar("SELECT count(*) FROM records WHERE collection = 'reports'") == 1)
    }
}
