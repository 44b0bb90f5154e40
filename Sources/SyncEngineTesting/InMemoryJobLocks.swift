public import SyncEngine
import Synchronization

/// `JobLocks` in memory: one process's view of the locks, held to `PostgresJobLocks`'
/// behaviour by the job locks contract suite.
public final class InMemoryJobLocks: JobLocks {
    private let held = Mutex<Set<String>>([])

    public init() {}

    public func whileHolding<T>(_ name: String, _ body: () throws -> T) throws -> T? {
        guard held.withLock({ $0.insert(name).inserted }) else { return nil }
        defer { _ = held.withLock { $0.remove(name) } }
        return try body()
    }
}
