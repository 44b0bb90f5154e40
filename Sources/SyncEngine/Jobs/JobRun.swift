public import Foundation

/// One run of a background job, as `job_runs` records it.
public struct JobRun: Sendable, Equatable, Identifiable {
    /// How a run ended; `running` while it runs.
    public enum Outcome: String, Sendable, Equatable {
        case running, succeeded, failed
        /// Its process stopped (crashed, was killed) before it finished; the next run carries on.
        case interrupted
    }

    public let id: Int64
    public let job: String
    /// The admin who asked for it; nil for a scheduled run.
    public let requestedBy: String?
    /// That admin's user name.
    public let requestedByName: String?
    public let startedAt: Date
    public let finishedAt: Date?
    public let outcome: Outcome
    /// What the run did so far, per kind (rows deleted per rule, sessions removed…).
    public let counts: [String: Int]
    /// Progress: `done` of `total` (nil while unknown).
    public let done: Int
    public let total: Int?
    public let error: String?

    public init(
        id: Int64, job: String, requestedBy: String?, requestedByName: String?, startedAt: Date, finishedAt: Date?, outcome: Outcome,
        counts: [String: Int], done: Int, total: Int?, error: String?
    ) {
        self.id = id
        self.job = job
        self.requestedBy = requestedBy
        self.requestedByName = requestedByName
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.outcome = outcome
        self.counts = counts
        self.done = done
        self.total = total
        self.error = error
    }

    /// How long it ran (so far, for a run still running).
    public func duration(now: Date = Date()) -> TimeInterval {
        (finishedAt ?? now).timeIntervalSince(startedAt)
    }
}
