public import Foundation
import SyncProtocol

/// What saving some settings would do, computed from the live data before an admin confirms.
public struct SettingsPreview: Sendable {
    /// The settings previewed.
    public var settings: ServerSettings
    /// What the next retention run deletes under them, per rule: the figures of the job's own pass.
    public var deletions: RetentionReport
    /// Devices that last synced before the tombstone window: their cursors outlive the
    /// deletions they would need, so they download everything again.
    public var fullRedownload: DeviceGroup
    /// Devices below the minimum supported version: they keep syncing but stop creating records.
    public var belowMinimum: DeviceGroup
    /// Devices below the emergency minimum: refused on every sync call (empty when it is unset).
    public var refused: DeviceGroup
}

/// Some devices, with totals over all of them and the first few listed.
public struct DeviceGroup: Sendable {
    /// At most ``SettingsPreviewer/listedDevices`` of them, by device id.
    public var devices: [DeviceStanding]
    public var count: Int
    /// Distinct users of these devices.
    public var users: Int
    public var deferredOps: Int
    public var incompleteUploads: Int

    init(_ all: [DeviceStanding], listing limit: Int) {
        devices = Array(all.prefix(limit))
        count = all.count
        users = Set(all.compactMap(\.userId)).count
        deferredOps = all.reduce(0) { $0 + $1.deferredOps }
        incompleteUploads = all.reduce(0) { $0 + $1.incompleteUploads }
    }

    /// Work the server knows these devices still have to send.
    public var unfinishedWork: Int { deferredOps + incompleteUploads }
}

/// Previews settings with the retention job's own pass and the devices' standing.
///
/// ```swift
/// let previewer = SettingsPreviewer(retention: pass, devices: store, webSessionIdleTimeout: 28_800)
/// let preview = try previewer.preview(proposed)
/// print(preview.deletions[.tombstones], preview.refused.count)
/// ```
public struct SettingsPreviewer: Sendable {
    /// How many devices each group lists; its totals count them all.
    public static let listedDevices = 100
    let retention: RetentionPass
    let devices: any DeviceStandingStore
    let webSessionIdleTimeout: TimeInterval

    /// - Parameters:
    ///   - retention: The pass the retention job runs, so the figures are what it deletes.
    ///   - webSessionIdleTimeout: The idle timeout the retention job is given.
    public init(retention: RetentionPass, devices: any DeviceStandingStore, webSessionIdleTimeout: TimeInterval) {
        self.retention = retention
        self.devices = devices
        self.webSessionIdleTimeout = webSessionIdleTimeout
    }

    public func preview(_ settings: ServerSettings, now: Date = Date()) throws -> SettingsPreview {
        let cutoffs = RetentionCutoffs(settings: settings, now: now, webSessionIdleTimeout: webSessionIdleTimeout)
        let deletions = try retention.pending(cutoffs)
        let all = try devices.standings()
        let limit = Self.listedDevices
        let minimum = AppVersion(settings.minSupportedAppVersion)
        let floor = settings.hardMinimumAppVersion.flatMap(AppVersion.init)
        return SettingsPreview(
            settings: settings, deletions: deletions,
            fullRedownload: DeviceGroup(all.filter { $0.lastSyncAt.map { $0 < cutoffs.tombstones } ?? false }, listing: limit),
            belowMinimum: DeviceGroup(minimum.map { minimum in all.filter { Self.isBelow($0.appVersion, minimum) } } ?? [], listing: limit),
            refused: DeviceGroup(floor.map { floor in all.filter { Self.isBelow($0.appVersion, floor) } } ?? [], listing: limit))
    }

    /// Below `floor` as the gate and the apps judge it: a version that cannot be read is below.
    static func isBelow(_ version: String?, _ floor: AppVersion) -> Bool {
        version.flatMap(AppVersion.init).map { $0 < floor } ?? true
    }
}
