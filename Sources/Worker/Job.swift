/// Work the background worker repeats on a schedule. Jobs are idempotent: running one
/// twice, or on two instances one after the other, does no harm.
public protocol Job: Sendable {
    /// A stable name, used in logs and for the lock that keeps instances from running it at once.
    var name: String { get }
    /// Does one pass and describes what it did.
    func run() throws -> String
}
