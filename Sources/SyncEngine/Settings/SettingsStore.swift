public import Foundation

/// The operator's `ServerSettings`: what settings need from the database.
///
/// Every sync call consults the settings, so a store keeps them in memory and re-reads them
/// after `invalidate()` (another server process changed them).
///
/// ```swift
/// var settings = try store.current()
/// settings.maintenanceMode = true
/// let changed = try store.update(settings, by: admin.id)   // audited, announced
/// ```
public protocol SettingsStore: Sendable {
    /// The current settings.
    func current() throws -> ServerSettings

    /// Forgets the in-memory copy, so the next read sees the database.
    func invalidate()

    /// Stores the keys whose values differ, in one transaction with their audit rows and a
    /// `settings.changed` event; returns the changed keys with their old and new JSON values.
    /// - Parameter userId: Who made the change (nil for the command line), recorded in the audit.
    @discardableResult
    func update(_ settings: ServerSettings, by userId: String?) throws -> [SettingChange]

    /// The most recent settings changes, newest first, at most `limit`.
    func auditTrail(limit: Int) throws -> [SettingAuditEntry]
}

/// One audited settings change.
public struct SettingChange: Sendable, Equatable, Codable {
    public let key: String
    /// JSON text of the previous and the new value.
    public let old: String
    public let new: String

    public init(key: String, old: String, new: String) {
        self.key = key
        self.old = old
        self.new = new
    }
}

/// One recorded settings change, as the back-office lists it.
public struct SettingAuditEntry: Sendable, Equatable {
    public let changedAt: Date
    /// The user who made the change; nil for changes from the command line.
    public let userId: String?
    /// That user's name, when the change was made by a user.
    public let username: String?
    public let key: String
    /// JSON text of the value before and after the change (`null` when unset).
    public let old: String
    public let new: String

    public init(changedAt: Date, userId: String?, username: String?, key: String, old: String, new: String) {
        self.changedAt = changedAt
        self.userId = userId
        self.username = username
        self.key = key
        self.old = old
        self.new = new
    }
}
