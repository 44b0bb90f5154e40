public import Foundation
public import SyncEngine

/// Deletes what retention rules no longer require, rule after rule in bounded batches, each
/// batch's count recorded in the run as it commits.
///
/// Two jobs are made of it: `retention` (op results, tombstones, scope exits, idempotency
/// keys, back-office sessions, expired device tokens) and the live feed's `live-feed-outbox`.
public struct RetentionJob: Job {
    public let name: String
    public let summary: String
    private let pass: RetentionPass
    private let settings: any SettingsStore
    private let webSessionIdleTimeout: TimeInterval
    private let minutes: @Sendable (ServerSettings) -> Int

    /// - Parameters:
    ///   - minutes: The setting that says how often it runs.
    ///   - webSessionIdleTimeout: How long a back-office session may stay unused.
    public init(
        name: String, summary: String, pass: RetentionPass, settings: any SettingsStore, webSessionIdleTimeout: TimeInterval,
        minutes: @escaping @Sendable (ServerSettings) -> Int
    ) {
        self.name = name
        self.summary = summary
        self.pass = pass
        self.settings = settings
        self.webSessionIdleTimeout = webSessionIdleTimeout
        self.minutes = minutes
    }

    public func schedule(in settings: ServerSettings) -> JobSchedule {
        JobSchedule(minutes: minutes(settings))
    }

    public func run(_ progress: JobProgress) throws {
        let cutoffs = RetentionCutoffs(settings: try settings.current(), now: Date(), webSessionIdleTimeout: webSessionIdleTimeout)
        let report = try pass.run(cutoffs) { report, total in
            try progress.report(done: report.total, total: total, counts: report.named)
        }
        try progress.report(done: report.total, total: report.total, counts: report.named)
    }
}
