import Foundation
public import SyncEngine
import Synchronization

/// A `SettingsStore` in memory, held to `PostgresSettingsStore`'s behaviour by the settings
/// contract suite. It knows no users, so its audit entries name none.
public final class InMemorySettingsStore: SettingsStore {
    private struct State {
        var settings = ServerSettings()
        var audit: [SettingAuditEntry] = []
    }

    private let state = Mutex(State())

    public init() {}

    public func current() throws -> ServerSettings { state.withLock { $0.settings } }

    /// Nothing is cached: every read sees the stored settings.
    public func invalidate() {}

    @discardableResult
    public func update(_ settings: ServerSettings, by userId: String?) throws -> [SettingChange] {
        try state.withLock { state in
            let changes = try ServerSettings.changes(from: state.settings, to: settings)
            let now = Date()
            state.settings = settings
            state.audit += changes.map {
                SettingAuditEntry(changedAt: now, userId: userId, username: nil, key: $0.key, old: $0.old, new: $0.new)
            }
            return changes
        }
    }

    public func auditTrail(limit: Int) throws -> [SettingAuditEntry] {
        state.withLock { Array($0.audit.reversed().prefix(limit)) }
    }
}
