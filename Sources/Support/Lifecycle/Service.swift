import Foundation

/// A long-lived part of a FieldSync process (the HTTP server, the background worker, the
/// live-event hub, the listener for other processes' changes): it runs from `start()` until
/// `stop()`.
///
/// ```swift
/// let services = ServiceGroup([listener, hub, worker, http], logger: logger)
/// try services.start()          // in this order
/// ShutdownSignal().wait()
/// services.stop()               // http, worker, hub, listener
/// ```
/// Services run on threads and queues of their own rather than on Swift's cooperative pool:
/// their work blocks (libpq, file I/O), see docs/decisions/0001.
public protocol Service: Sendable {
    /// The service's name in logs.
    var name: String { get }

    /// Starts the service's threads or queues and returns.
    func start() throws

    /// Stops the service gracefully and returns once it has stopped; called at most once, after
    /// `start()` succeeded.
    func stop()
}

extension Service {
    /// Starts, runs until the task is cancelled, then stops (on a thread of its own, since
    /// stopping waits for work in progress).
    public func run() async throws {
        try start()
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(3600))
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                self.stop()
                continuation.resume()
            }
        }
    }
}
