import SyncEngine

/// What a job reports while it runs: counts of what it did, and `done` of `total`. Each
/// report is written to the run's history at once, so admins see it and a crash keeps it.
public final class JobProgress {
    public let run: Int64
    private let runs: any JobRunStore
    /// The latest counts reported, recorded with the outcome when the run ends.
    public private(set) var counts: [String: Int] = [:]

    init(run: Int64, runs: any JobRunStore) {
        self.run = run
        self.runs = runs
    }

    /// Records that `done` of `total` (nil: not known) units are done, with the counts so far.
    public func report(done: Int, total: Int?, counts: [String: Int]) throws {
        self.counts = counts
        try runs.progress(run, done: done, total: total, counts: counts)
    }
}
