public import Foundation

/// The history of background job runs: what the job runner needs from the database.
///
/// The runner calls `begin` while it holds the job's lock (`JobLocks`), so a run of the same
/// job still marked running can only belong to a process that died.
///
/// ```swift
/// let run = try runs.begin(job: "retention", requestedBy: nil)
/// try runs.progress(run, done: 500, total: 2_000, counts: ["opResults": 500])
/// try runs.finish(run, outcome: .succeeded, counts: ["opResults": 2_000], error: nil)
/// ```
public protocol JobRunStore: Sendable {
    /// Marks the job's runs still `running` as `interrupted`, then records a new running run.
    /// - Returns: the new run's id.
    func begin(job: String, requestedBy: String?) throws -> Int64

    /// Records how far the run is.
    func progress(_ run: Int64, done: Int, total: Int?, counts: [String: Int]) throws

    /// Records how the run ended.
    func finish(_ run: Int64, outcome: JobRun.Outcome, counts: [String: Int], error: String?) throws

    /// When the job's latest run started, on any instance; nil if it never ran.
    func lastStart(job: String) throws -> Date?

    /// The job's latest runs, newest first, at most `limit`.
    func recent(job: String, limit: Int) throws -> [JobRun]

    /// The run `id`, if there is one.
    func run(_ id: Int64) throws -> JobRun?

    /// Failed or interrupted runs no admin has acknowledged yet, newest first, at most `limit`.
    func unacknowledgedFailures(limit: Int) throws -> [JobRun]

    /// Records that `userId` has seen the failed or interrupted runs `runs` (nil: all of them),
    /// those not acknowledged already.
    /// - Returns: how many runs it acknowledged.
    @discardableResult
    func acknowledgeFailures(by userId: String, runs: [Int64]?) throws -> Int
}
