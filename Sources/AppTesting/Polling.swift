/// Polls `condition` every 20 ms until it holds or `bound` passes, then checks once more.
/// - Returns: whether it held.
public func eventually(within bound: Duration = .seconds(10), _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + bound
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return try await condition()
}
