import Storage

/// Deletes op results, tombstones, scope exits and old events past their retention windows.
public struct RetentionJob: Job {
    public let name = "retention"
    private let store: RetentionStore
    private let settings: SettingsStore

    public init(store: RetentionStore, settings: SettingsStore) {
        self.store = store
        self.settings = settings
    }

    public func run() throws -> String {
        "removed \(try store.purge(try settings.current()))"
    }
}
