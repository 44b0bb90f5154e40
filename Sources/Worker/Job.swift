public import SyncEngine

/// Work the background worker runs on a schedule or when an admin asks. A job works in
/// bounded batches, each committed on its own, and reports its progress as it goes; run
/// again after a crash it carries on with what is left.
public protocol Job: Sendable {
    /// A stable name, used in the run history, in logs and for the lock that keeps instances
    /// from running it at once.
    var name: String { get }

    /// One line on what it does, for the back-office.
    var summary: String { get }

    /// How often it runs on its own under `settings`.
    func schedule(in settings: ServerSettings) -> JobSchedule

    /// Does one run, reporting counts and progress to `progress`.
    func run(_ progress: JobProgress) throws
}
