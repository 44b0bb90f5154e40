public import Foundation
public import Support
public import SyncEngine

/// Runs a job under its lock and records the run: of every FieldSync process on one database
/// only one runs a given job at a time, and every run it starts is in `job_runs` with who asked,
/// its progress, counts and outcome.
///
/// ```swift
/// let runner = JobRunner(locks: locks, runs: runs, settings: settings, logger: logger)
/// switch try runner.run(retention, requestedBy: admin.id) { case .busy: …; case .ran(let id, let outcome): … }
/// ```
public struct JobRunner: Sendable {
    /// What asking for a run led to.
    public enum Result: Sendable, Equatable {
        /// It ran (run `id`) and ended with `outcome` (`succeeded` or `failed`).
        case ran(id: Int64, outcome: JobRun.Outcome)
        /// Another process is running the job now.
        case busy
        /// A scheduled run found the job ran recently enough on some instance.
        case notDue
    }

    let locks: any JobLocks
    public let runs: any JobRunStore
    let settings: any SettingsStore
    let logger: Logger

    public init(locks: any JobLocks, runs: any JobRunStore, settings: any SettingsStore, logger: Logger) {
        self.locks = locks
        self.runs = runs
        self.settings = settings
        self.logger = logger
    }

    /// Runs `job` now, unless another process is running it.
    /// - Parameters:
    ///   - requestedBy: The admin who asked; nil for the schedule or the command line.
    ///   - dueAt: For a scheduled run, the time it is due by: the schedule is checked under the
    ///     lock, against the latest run on any instance, so two instances never both run it.
    /// - Throws: only when the lock or the run history cannot be reached; a job's own failure
    ///   is recorded as a `failed` run.
    @discardableResult
    public func run(_ job: any Job, requestedBy: String? = nil, dueAt: Date? = nil) throws -> Result {
        try locks.whileHolding(job.name) { () throws -> Result in
            if let dueAt {
                let schedule = job.schedule(in: try settings.current())
                guard schedule.isDue(lastStart: try runs.lastStart(job: job.name), now: dueAt) else { return .notDue }
            }
            return try record(job, requestedBy: requestedBy)
        } ?? .busy
    }

    private func record(_ job: any Job, requestedBy: String?) throws -> Result {
        let id = try runs.begin(job: job.name, requestedBy: requestedBy)
        let progress = JobProgress(run: id, runs: runs)
        let started = ContinuousClock.now
        do {
            try job.run(progress)
            try runs.finish(id, outcome: .succeeded, counts: progress.counts, error: nil)
            logger.info("job finished in \(ContinuousClock.now - started): \(progress.counts)", metadata: ["job.name": job.name])
            return .ran(id: id, outcome: .succeeded)
        } catch {
            try runs.finish(id, outcome: .failed, counts: progress.counts, error: String(describing: error))
            logger.error("job failed: \(error)", metadata: ["job.name": job.name])
            return .ran(id: id, outcome: .failed)
        }
    }
}
