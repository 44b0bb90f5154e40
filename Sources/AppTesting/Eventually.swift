/// Polls `probe` until it returns a value, or until `bound` has passed and one more try after it
/// has failed too; nil then.
///
/// The try after the deadline matters on a loaded machine: a test task that is not scheduled
/// again until the deadline has passed still gets to look once at a state that may have arrived.
public func eventually<Value>(
    within bound: Duration, every interval: Duration = .milliseconds(20), _ probe: () async throws -> Value?
) async throws -> Value? {
    let deadline = ContinuousClock.now + bound
    while true {
        let expired = ContinuousClock.now >= deadline
        if let value = try await probe() { return value }
        if expired { return nil }
        try await Task.sleep(for: interval)
    }
}
