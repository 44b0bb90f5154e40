/// Keeps a background job from running on two FieldSync processes at once.
public protocol JobLocks: Sendable {
    /// Runs `body` while holding the lock named `name`; returns nil without running it when
    /// another process holds the lock now.
    func whileHolding<T>(_ name: String, _ body: () throws -> T) throws -> T?
}
