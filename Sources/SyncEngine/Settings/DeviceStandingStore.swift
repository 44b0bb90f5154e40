public import Foundation

/// A device as a settings preview weighs it: who uses it, what it last reported, and what the
/// server knows it still has unfinished.
public struct DeviceStanding: Sendable, Equatable {
    public var deviceId: String
    public var userId: String?
    public var username: String?
    public var teamId: String?
    public var appVersion: String?
    public var lastSyncAt: Date?
    /// Its ops the server holds back, waiting to apply.
    public var deferredOps: Int
    /// Its upload sessions not yet finalized.
    public var incompleteUploads: Int

    public init(
        deviceId: String, userId: String?, username: String?, teamId: String?, appVersion: String?, lastSyncAt: Date?, deferredOps: Int,
        incompleteUploads: Int
    ) {
        (self.deviceId, self.userId, self.username, self.teamId) = (deviceId, userId, username, teamId)
        (self.appVersion, self.lastSyncAt, self.deferredOps, self.incompleteUploads) = (appVersion, lastSyncAt, deferredOps, incompleteUploads)
    }
}

/// Every device the server knows, for previews of settings changes.
public protocol DeviceStandingStore: Sendable {
    /// All known devices with their standing, ordered by device id.
    func standings() throws -> [DeviceStanding]
}
