import Storage
import SyncEngine
import WebUI
public import Worker

/// Retention: the job that deletes what the retention settings no longer require.
public struct RetentionFeature: Feature {
    /// The retention rules the `retention` job applies (the live feed's outbox has its own job).
    static let rules: [RetentionRule] = [.opResults, .tombstones, .scopeExits, .idempotencyKeys, .webSessions, .deviceTokens]
    let core: Core

    init(_ core: Core) {
        self.core = core
    }

    /// The pass the `retention` job runs; settings previews count with it too.
    static func pass(_ core: Core) -> RetentionPass {
        RetentionPass(store: PostgresRetentionStore(database: core.database), rules: rules)
    }

    public var jobs: [any Job] {
        [
            RetentionJob(
                name: "retention",
                summary: "Deletes op results, deletions, scope exits, idempotency keys, ended back-office sessions and long-expired "
                    + "device tokens past their retention windows.",
                pass: Self.pass(core),
                settings: core.settings, webSessionIdleTimeout: core.configuration.web.idleTimeout, minutes: { $0.retentionJobMinutes })
        ]
    }
}
