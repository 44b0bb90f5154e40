public import SyncEngine

/// Deletes op results, tombstones, scope exits and old events past their retention windows.
public struct RetentionJob: Job {
    public let name = "retention"
    private let store: any RetentionStore
    private let settings: any SettingsStore

    public init(store: any RetentionStore, settings: any SettingsStore) {
        self.store = store
        self.settings = settings
    }

    public func run() throws -> String {
        "removed \(try store.purge(try settings.current()))"
    }
}
