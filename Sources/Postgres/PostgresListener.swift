import Dispatch
import Foundation
public import Support
import Synchronization

/// Receives `NOTIFY` messages on a dedicated connection and thread.
///
/// The listener sets `application_name` to `fieldsync-listener` unless the configuration names one.
/// When the connection is lost it reconnects with exponential backoff (0.1 s doubling up to 5 s) and
/// subscribes again. Notifications sent while it is disconnected are lost, as PostgreSQL does not
/// queue them for absent listeners: consumers that must not miss changes re-read state on reconnect.
///
/// ```swift
/// let listener = PostgresListener(configuration: configuration, channels: ["fieldsync_events"], logger: logger) { channel, payload in
///     feed.publish(payload)
/// }
/// listener.start()
/// defer { listener.stop() }
/// ```
public final class PostgresListener: Sendable {
    private struct State {
        var isStopping = false
        /// Signalled by the listener thread when it exits; nil when no thread is running.
        var finished: DispatchSemaphore?
    }

    private let configuration: PostgresConfiguration
    private let channels: [String]
    private let logger: Logger
    private let handler: @Sendable (_ channel: String, _ payload: String) -> Void
    private let state = Mutex(State())
    /// Cuts a reconnect backoff short when `stop()` is called.
    private let wakeup = DispatchSemaphore(value: 0)

    /// - Parameters:
    ///   - channels: channel names; any text is allowed (they are quoted as identifiers).
    ///   - handler: called on the listener's thread for each notification, in arrival order.
    public init(
        configuration: PostgresConfiguration, channels: [String], logger: Logger,
        handler: @escaping @Sendable (_ channel: String, _ payload: String) -> Void
    ) {
        var configuration = configuration
        if configuration.parameters["application_name"] == nil { configuration.parameters["application_name"] = "fieldsync-listener" }
        self.configuration = configuration
        self.channels = channels
        self.logger = logger
        self.handler = handler
    }

    /// Starts the listening thread; does nothing if it is already running.
    public func start() {
        let finished = DispatchSemaphore(value: 0)
        let started = state.withLock { state in
            guard state.finished == nil else { return false }
            state = State(isStopping: false, finished: finished)
            return true
        }
        guard started else { return }
        // A plain thread, not a Dispatch or cooperative-pool worker: it blocks in poll() for its whole life.
        let thread = Thread { [self] in
            run()
            finished.signal()
        }
        thread.name = "fieldsync-listener"
        thread.start()
    }

    /// Stops listening and waits for the thread to exit (at most one poll interval, 0.1 s).
    public func stop() {
        guard
            let finished = state.withLock({ state -> DispatchSemaphore? in
                state.isStopping = true
                return state.finished
            })
        else { return }
        wakeup.signal()
        finished.wait()
        state.withLock { $0.finished = nil }
        // Drain a wake-up the thread did not consume, so a later start() does not skip a backoff.
        while wakeup.wait(timeout: .now()) == .success {}
    }

    private var isStopping: Bool { state.withLock { $0.isStopping } }

    private func run() {
        var backoff = Self.initialBackoff
        while !isStopping {
            do {
                let connection = try PostgresConnection(configuration: configuration, logger: logger)
                defer { connection.close() }
                try connection.listen(to: channels)
                logger.debug("postgres listener subscribed", metadata: ["db.channels": channels.joined(separator: ",")])
                backoff = Self.initialBackoff
                try deliver(from: connection)
            } catch {
                logger.debug("postgres listener disconnected", metadata: ["db.error": "\(error)", "db.retry_in": "\(backoff)"])
                _ = wakeup.wait(timeout: .now() + backoff.dispatchInterval)
                backoff = min(backoff * 2, Self.maximumBackoff)
            }
        }
    }

    /// Hands notifications to the handler until `stop()` or a lost connection (which throws).
    private func deliver(from connection: PostgresConnection) throws {
        while !isStopping {
            for notification in try connection.waitForNotifications(timeoutMilliseconds: 100) {
                handler(notification.channel, notification.payload)
            }
        }
    }

    private static let initialBackoff: Duration = .milliseconds(100)
    private static let maximumBackoff: Duration = .seconds(5)
}
