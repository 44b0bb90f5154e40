import Dispatch

/// Lets at most `limit` callers run some costly work at once; the others wait up to a
/// deadline, then are turned away. Password hashing uses it so a flood of logins cannot
/// take every core (and every request worker) at once.
///
/// ```swift
/// let gate = ConcurrencyGate(limit: 4, wait: .seconds(2))
/// guard let result = gate.run({ hasher.verify(password, against: hash) }) else { throw Busy() }
/// ```
public final class ConcurrencyGate: Sendable {
    private let slots: DispatchSemaphore
    private let wait: Duration

    /// - Parameters:
    ///   - limit: callers allowed in at once (at least 1).
    ///   - wait: how long a caller waits for a free slot.
    public init(limit: Int, wait: Duration) {
        slots = DispatchSemaphore(value: max(1, limit))
        self.wait = wait
    }

    /// Runs `work` once a slot is free; nil when none freed up in time (`work` did not run).
    public func run<T>(_ work: () throws -> T) rethrows -> T? {
        let (seconds, attoseconds) = wait.components
        let deadline = DispatchTime.now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
        guard slots.wait(timeout: deadline) == .success else { return nil }
        defer { slots.signal() }
        return try work()
    }
}
