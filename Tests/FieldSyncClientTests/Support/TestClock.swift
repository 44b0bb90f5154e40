import Foundation
import Synchronization

/// A device clock the test moves by hand, and a sleep that records what the client asked
/// for and returns at once (or, with `realSleepCap`, after at most that long in real time).
final class TestClock: Sendable {
    private let state: Mutex<(now: Date, sleeps: [Duration])>
    private let realSleepCap: Duration?

    init(start: Date = Date(), realSleepCap: Duration? = nil) {
        state = Mutex((start, []))
        self.realSleepCap = realSleepCap
    }

    var now: Date { state.withLock { $0.now } }

    /// Every wait the client asked for, in order.
    var sleeps: [Duration] { state.withLock { $0.sleeps } }

    func advance(by seconds: TimeInterval) {
        state.withLock { $0.now = $0.now.addingTimeInterval(seconds) }
    }

    /// Test devices poll once a day: such a wait really waits (until the loop is cancelled), so
    /// that instant retries cannot turn into a stream of polls.
    static let pollInterval = Duration.seconds(86_400)

    func sleep(_ duration: Duration) async throws {
        if duration >= Self.pollInterval { try await Task.sleep(for: duration) }
        state.withLock { $0.sleeps.append(duration) }
        if let realSleepCap { try await Task.sleep(for: min(duration, realSleepCap)) } else { await Task.yield() }
        state.withLock { $0.now = $0.now.addingTimeInterval(Double(duration.components.seconds)) }
        try Task.checkCancellation()
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
