import Foundation
import HTTP
public import Support
public import SyncEngine
import SyncProtocol

/// The checks every sync call passes before it does any work (PROTOCOL.md, Gating):
/// maintenance mode, the emergency minimum app version, and the per-device rate limit.
/// Apps merely below `minSupportedAppVersion` pass: their work is never stranded.
public struct SyncGate: Sendable {
    let settings: any SettingsStore
    let limiter: RateLimiter

    public init(settings: any SettingsStore, limiter: RateLimiter) {
        self.settings = settings
        self.limiter = limiter
    }

    /// Returns the settings in force for this call.
    /// - Parameter appVersion: The version the app states (`X-App-Version`, or the report
    ///   contract's body), nil when it states none.
    /// - Throws: 503 `MAINTENANCE`, 426 `UPGRADE_REQUIRED` or 429 `RATE_LIMITED`.
    public func admit(identity: DeviceIdentity, appVersion: String?) throws -> ServerSettings {
        let current = try settings.current()
        if current.maintenanceMode {
            throw APIError(
                .maintenance, "FieldSync is in maintenance. Your data is safe on the device; sync will resume.",
                headers: ["Retry-After": String(current.maintenanceRetryAfterSeconds)])
        }
        // Sync calls must say their version; one that cannot be read is not let past the floor.
        if let floorText = current.hardMinimumAppVersion, let floor = AppVersion(floorText),
            appVersion.flatMap(AppVersion.init).map({ $0 < floor }) ?? true
        {
            throw APIError(
                .upgradeRequired, "This app version can no longer sync. Update to \(floorText) or later.",
                details: ["minimumVersion": .string(floorText)])
        }
        // A bucket per user and device: a released device id's next owner gets a fresh one.
        if let wait = limiter.acquire(
            identity.user.id + "/" + identity.deviceId, perSecond: Double(current.deviceRequestsPerSecond), burst: current.deviceRequestBurst)
        {
            throw APIError(
                .rateLimited, "Too many sync calls from this device. Retry in \(wait) seconds.", headers: ["Retry-After": String(wait)])
        }
        return current
    }
}
