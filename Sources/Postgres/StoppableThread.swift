import Dispatch
import Foundation
import Synchronization

/// A plain thread for a loop that blocks for long (in `poll()`, in `pg_ctl`), so not a Dispatch
/// or cooperative-pool worker. `stop()` asks the loop to return, cuts its `pause` short and
/// waits until it has returned.
///
/// ```swift
/// let thread = StoppableThread(name: "fieldsync-watcher")
/// thread.start {
///     while !thread.isStopping {
///         check()
///         thread.pause(for: .seconds(1))
///     }
/// }
/// thread.stop()
/// ```
final class StoppableThread: Sendable {
    private let name: String
    /// Signalled by `stop()`, to end a pause early.
    private let wakeup = DispatchSemaphore(value: 0)
    /// Signalled when the running loop returns; nil while none runs.
    private let finished = Mutex<DispatchSemaphore?>(nil)
    private let stopping = Atomic(false)

    init(name: String) {
        self.name = name
    }

    /// Whether `stop()` was called: the loop should return.
    var isStopping: Bool { stopping.load(ordering: .relaxed) }

    /// Runs `loop` on a new thread; does nothing while a loop is running.
    func start(_ loop: @escaping @Sendable () -> Void) {
        let done = DispatchSemaphore(value: 0)
        let started = finished.withLock { finished in
            guard finished == nil else { return false }
            finished = done
            return true
        }
        guard started else { return }
        stopping.store(false, ordering: .relaxed)
        let thread = Thread {
            loop()
            done.signal()
        }
        thread.name = name
        thread.start()
    }

    /// Sleeps for `duration`, or until `stop()` is called.
    func pause(for duration: Duration) {
        _ = wakeup.wait(timeout: .now() + duration.dispatchInterval)
    }

    /// Asks the loop to return and waits until it has; does nothing when none runs.
    func stop() {
        guard let done = finished.withLock({ $0 }) else { return }
        stopping.store(true, ordering: .relaxed)
        wakeup.signal()
        done.wait()
        finished.withLock { $0 = nil }
        // Drain a wake-up the loop did not consume, so a later start does not skip a pause.
        while wakeup.wait(timeout: .now()) == .success {}
    }
}
