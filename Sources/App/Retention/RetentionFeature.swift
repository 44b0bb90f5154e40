import Storage
public import Worker

/// Retention: the job that deletes what the retention settings no longer require.
public struct RetentionFeature: Feature {
    let core: Core

    init(_ core: Core) {
        self.core = core
    }

    public var jobs: [any Job] { [RetentionJob(store: PostgresRetentionStore(database: core.database), settings: core.settings)] }
}
