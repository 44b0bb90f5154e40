import App
import AppTesting
import Foundation
import Postgres
import Storage
import SyncEngine
import SyncProtocol
import Testing
import Worker

/// `GET /v1/admin/preview/settings` against live data: its figures are what the following
/// retention run deletes, and bad input changes nothing.
@Suite("Settings previews over HTTP", .serialized)
struct SettingsPreviewTests {
    static let path = "/v1/admin/preview/settings"

    /// A server with the preview scenario, windows wide enough that nothing is due yet, and an
    /// administrator's token (on a device running 2.3.0).
    static func start() async throws -> (server: TestServer, token: String) {
        let server = try await TestServer.start { $0.runsWorker = false }
        try SettingsPreviewScenario.load(server.core.database)
        let (_, token) = try await server.makeDevice(role: .admin, team: nil, deviceId: "admin-dev")
        try server.core.database.withConnection { try $0.execute("UPDATE devices SET app_version = '2.3.0' WHERE device_id = 'admin-dev'") }
        var settings = try server.core.settings.current()
        (settings.opResultRetentionDays, settings.tombstoneRetentionDays) = (90, 120)
        try server.core.settings.update(settings, by: nil)
        return (server, token)
    }

    static func deviceIds(_ group: JSONValue?) -> [String] {
        guard case .array(let devices)? = group?["devices"] else { return [] }
        return devices.compactMap { $0["deviceId"]?.stringValue }
    }

    @Test("The preview's deletions equal what the next retention run deletes once the settings are saved")
    func figuresEqualTheNextRun() async throws {
        let (server, token) = try await Self.start()
        defer { server.stop() }
        let query = "?opResultRetentionDays=35&tombstoneRetentionDays=45&minSupportedAppVersion=2.2.0&hardMinimumAppVersion=1.8.0"
        let response = try await server.client.get(Self.path + query, token: token)
        #expect(response.status == 200, "\(response)")
        let body = try response.json()
        guard case .object(let deletions)? = body["retention"]?["deletions"] else { throw TestServerError("no deletions: \(response)") }
        let previewed = deletions.mapValues { Int($0.intValue ?? -1) }
        #expect(previewed == SettingsPreviewScenario.deletions)

        let redownload = body["retention"]?["fullRedownload"]
        #expect(Self.deviceIds(redownload) == ["p-stale"])
        guard case .array(let stale)? = redownload?["devices"] else { throw TestServerError("no devices") }
        #expect(stale.first?["username"] == "paula" && stale.first?["teamId"] == "north")
        #expect(Self.deviceIds(body["minimumVersion"]) == ["p-old", "p-stale", "p-unknown"])
        #expect(body["minimumVersion"]?["users"] == 2)
        let refused = body["emergencyMinimum"]
        #expect(Self.deviceIds(refused) == ["p-old", "p-unknown"])
        #expect(refused?["deferredOps"] == 1 && refused?["incompleteUploads"] == 1 && refused?["count"] == 2)
        #expect(try server.core.settings.current().opResultRetentionDays == 90, "a preview saves nothing")

        var settings = try server.core.settings.current()
        (settings.opResultRetentionDays, settings.tombstoneRetentionDays) = (35, 45)
        try server.core.settings.update(settings, by: nil)
        let runner = Application.jobRunner(server.core)
        let job = try #require(server.application.features.flatMap(\.jobs).first { $0.name == "retention" })
        _ = try runner.run(job)
        let run = try #require(try runner.runs.recent(job: "retention", limit: 1).first)
        #expect(run.outcome == .succeeded && run.counts == previewed)
    }

    @Test("Without parameters the preview shows what the next run deletes under the current settings")
    func currentSettings() async throws {
        let (server, token) = try await Self.start()
        defer { server.stop() }
        let body = try await server.client.get(Self.path, token: token).json()
        #expect(body["settings"]?["opResultRetentionDays"] == 90 && body["emergencyMinimum"]?["count"] == 0)
        #expect(body["retention"]?["deletions"]?["tombstones"] == 0)
    }

    @Test("Non-administrators get 403 FORBIDDEN and no token 401")
    func adminsOnly() async throws {
        let (server, _) = try await Self.start()
        defer { server.stop() }
        for role in [Role.field, .supervisor, .dispatcher] {
            let (_, token) = try await server.makeDevice(role: role)
            let response = try await server.client.get(Self.path, token: token)
            #expect(response.status == 403 && response.errorCode == "FORBIDDEN", "\(role)")
        }
        #expect(try await server.client.get(Self.path).status == 401)
    }

    @Test(
        "A hostile or unknown value is 400 VALIDATION_FAILED naming the setting, and nothing changes",
        arguments: [
            ("opResultRetentionDays=29", "opResultRetentionDays"), ("opResultRetentionDays=abc", "opResultRetentionDays"),
            ("opResultRetentionDays=99999999999999999999999", "opResultRetentionDays"), ("tombstoneRetentionDays=-1", "tombstoneRetentionDays"),
            ("tombstoneRetentionDays=3651", "tombstoneRetentionDays"), ("minSupportedAppVersion=two", "minSupportedAppVersion"),
            ("minSupportedAppVersion=", "minSupportedAppVersion"),
            ("hardMinimumAppVersion=" + String(repeating: "1.", count: 40) + "1", "hardMinimumAppVersion"),
            ("hardMinimumAppVersion=3.0.0", "hardMinimumAppVersion"), ("maintenanceMode=true", "maintenanceMode"),
            ("opResultRetentionDays=%00", "opResultRetentionDays"),
        ])
    func hostile(query: String, field: String) async throws {
        let (server, token) = try await Self.start()
        defer { server.stop() }
        let before = try server.core.settings.current()
        let audit = try server.core.settings.auditTrail(limit: 50).count
        let response = try await server.client.get(Self.path + "?" + query, token: token)
        #expect(response.status == 400 && response.errorCode == "VALIDATION_FAILED", "\(response)")
        #expect(try response.errorEnvelope().error.details?["field"] == .string(field))
        #expect(try server.core.settings.current() == before)
        #expect(try server.core.settings.auditTrail(limit: 50).count == audit)
    }
}
