import Dispatch
public import Foundation

/// Turns SIGINT and SIGTERM into a single wake-up of the waiting thread.
///
/// The signals are ignored at the process level and observed through
/// `DispatchSource`, so no code runs in an async-signal context.
/// `@unchecked Sendable`: `sources` is written once in `init` and only kept alive afterwards.
public final class ShutdownSignal: @unchecked Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let sources: [any DispatchSourceSignal]

    public init(signals: [Int32] = [SIGINT, SIGTERM]) {
        let semaphore = self.semaphore
        sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { semaphore.signal() }
            source.resume()
            return source
        }
    }

    /// Blocks the calling thread until one of the signals arrives.
    public func wait() {
        semaphore.wait()
    }

    /// Wakes the waiter as a signal would (used by tests and fatal start-up paths).
    public func trigger() {
        semaphore.signal()
    }
}
