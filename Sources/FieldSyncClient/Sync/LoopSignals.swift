import Synchronization

/// Why the sync loop should look again.
enum Wake: Sendable, Hashable {
    /// The app saved an edit or a photo.
    case localChange
    /// The app reported the network is back.
    case networkRegained
    /// The user asked for a sync (or signed in again).
    case manual
    /// The wait ran out.
    case timer
}

/// The wake-ups of the one sync loop: signals are kept until the loop takes them, and a
/// waiting loop takes only those it accepts (a local edit does not cut a backoff short).
final class LoopSignals: Sendable {
    private struct State {
        var pending: Set<Wake> = []
        var waiter: (accepting: Set<Wake>, continuation: CheckedContinuation<Wake?, Never>)?
    }

    private let state = Mutex(State())

    func signal(_ wake: Wake) {
        let waiter = state.withLock { state -> CheckedContinuation<Wake?, Never>? in
            guard let waiter = state.waiter, waiter.accepting.contains(wake) else {
                state.pending.insert(wake)
                return nil
            }
            state.waiter = nil
            return waiter.continuation
        }
        waiter?.resume(returning: wake)
    }

    /// Waits for an accepted signal (one already pending returns at once); nil when the
    /// task is cancelled. Accepted pending signals are all consumed.
    /// Forgets every pending signal (the loop is about to sync anyway).
    func clear() {
        state.withLock { $0.pending.removeAll() }
    }

    func next(accepting: Set<Wake>) async -> Wake? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Wake?? in
                    // Checked under the lock that onCancel takes: a cancellation either is seen
                    // here or finds the waiter registered.
                    if Task.isCancelled { return .some(nil) }
                    if let wake = accepting.first(where: { state.pending.contains($0) }) {
                        state.pending.subtract(accepting)
                        return wake
                    }
                    state.waiter = (accepting, continuation)
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                defer { state.waiter = nil }
                return state.waiter?.continuation
            }
            waiter?.resume(returning: nil)
        }
    }
}
