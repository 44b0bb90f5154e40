import Foundation
import SyncEngine
import Testing

/// The previewer's decisions in memory: who falls below a floor, who is stale, and the totals.
@Suite("Settings previewer")
struct SettingsPreviewerTests {
    /// Counts one row per rule; deletes nothing.
    struct OneOfEach: RetentionStore {
        func count(_ rule: RetentionRule, _ cutoffs: RetentionCutoffs) throws -> Int { 1 }
        func delete(_ rule: RetentionRule, _ cutoffs: RetentionCutoffs, limit: Int) throws -> Int { 0 }
    }

    struct Devices: DeviceStandingStore {
        let all: [DeviceStanding]
        func standings() throws -> [DeviceStanding] { all }
    }

    static let now = Date(timeIntervalSince1970: 1_781_524_800)

    static func device(_ id: String, user: String, version: String?, daysAgo: Double?, deferred: Int = 0, uploads: Int = 0) -> DeviceStanding {
        DeviceStanding(
            deviceId: id, userId: user, username: user, teamId: nil, appVersion: version,
            lastSyncAt: daysAgo.map { now.addingTimeInterval(-$0 * 86_400) }, deferredOps: deferred, incompleteUploads: uploads)
    }

    @Test("An unreadable or unknown version is below a floor; a device that never synced is not stale; totals span every device")
    func groups() throws {
        let devices = [
            Self.device("a", user: "u1", version: "1.0.0", daysAgo: 50, deferred: 2, uploads: 1),
            Self.device("b", user: "u1", version: "beta", daysAgo: 10),
            Self.device("c", user: "u2", version: nil, daysAgo: nil, uploads: 3),
            Self.device("d", user: "u3", version: "2.5.0", daysAgo: 31),
        ]
        let previewer = SettingsPreviewer(
            retention: RetentionPass(store: OneOfEach(), rules: [.opResults, .tombstones]), devices: Devices(all: devices),
            webSessionIdleTimeout: 1800)
        var settings = ServerSettings()
        settings.tombstoneRetentionDays = 45
        settings.minSupportedAppVersion = "2.5.0"
        settings.hardMinimumAppVersion = "2.0.0"
        let preview = try previewer.preview(settings, now: Self.now)
        #expect(preview.deletions.named == ["opResults": 1, "tombstones": 1])
        #expect(preview.fullRedownload.devices.map(\.deviceId) == ["a"])
        #expect(preview.belowMinimum.devices.map(\.deviceId) == ["a", "b", "c"] && preview.belowMinimum.users == 2)
        #expect(preview.refused.count == 3 && preview.refused.deferredOps == 2 && preview.refused.incompleteUploads == 4)
        settings.hardMinimumAppVersion = nil
        #expect(try previewer.preview(settings, now: Self.now).refused.count == 0)
    }

    @Test("A group lists at most 100 devices and counts them all")
    func listingLimit() throws {
        let devices = (0..<250).map { Self.device(String(format: "d%03d", $0), user: "u\($0 % 7)", version: "1.0.0", daysAgo: 1, deferred: 1) }
        let previewer = SettingsPreviewer(
            retention: RetentionPass(store: OneOfEach(), rules: []), devices: Devices(all: devices), webSessionIdleTimeout: 0)
        let below = try previewer.preview(ServerSettings(), now: Self.now).belowMinimum
        #expect(below.devices.count == SettingsPreviewer.listedDevices && below.count == 250 && below.users == 7 && below.deferredOps == 250)
    }
}
