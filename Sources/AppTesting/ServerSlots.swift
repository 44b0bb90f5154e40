import Synchronization

/// Bounds how many test servers run at once.
///
/// Swift Testing starts every test at the same time; each server holds up to its pool size plus
/// one connection of the one test cluster, shared with every suite of the process.
/// Waiters queue in arrival order.
///
/// ```swift
/// static let slots = ServerSlots(limit: 3)
/// await slots.acquire()
/// defer { slots.release() }
/// ```
public final class ServerSlots: Sendable {
    private struct State {
        var free: Int
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>

    public init(limit: Int) { state = Mutex(State(free: limit)) }

    public func acquire() async {
        await withCheckedContinuation { continuation in
            let granted = state.withLock { state in
                guard state.free > 0 else {
                    state.waiting.append(continuation)
                    return false
                }
                state.free -= 1
                return true
            }
            if granted { continuation.resume() }
        }
    }

    /// Hands the slot to the first waiter, or frees it.
    public func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiting.isEmpty else {
                state.free += 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
