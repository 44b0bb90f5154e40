import App
import AppTesting
import Synchronization

/// Bounds how many sync test servers run at once.
///
/// Swift Testing starts every test at the same time; each server holds up to its pool size plus
/// one connection of the one test cluster, shared with every suite of the process.
/// Waiters queue in arrival order.
final class ServerSlots: Sendable {
    static let shared = ServerSlots(limit: 6)

    private struct State {
        var free: Int
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>

    init(limit: Int) { state = Mutex(State(free: limit)) }

    func acquire() async {
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
    func release() {
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

extension TestServer {
    /// A test server started once one of the `ServerSlots` is free; end it with `finish()`.
    /// - Parameter poolSize: its PostgreSQL connections; small, since the other suites share the cluster.
    static func startSync(poolSize: Int = 2) async throws -> TestServer {
        await ServerSlots.shared.acquire()
        do {
            return try await start { $0.databasePoolSize = poolSize }
        } catch {
            ServerSlots.shared.release()
            throw error
        }
    }

    /// Stops a server of `startSync()` and frees its slot.
    func finish() {
        stop()
        ServerSlots.shared.release()
    }
}
