public import Support

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
    private let configuration: PostgresConfiguration
    private let channels: [String]
    private let logger: Logger
    private let handler: @Sendable (_ channel: String, _ payload: String) -> Void
    private let thread = StoppableThread(name: "fieldsync-listener")

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
        thread.start { [self] in run() }
    }

    /// Stops listening and waits for the thread to exit (at most one poll interval, 0.1 s).
    public func stop() {
        thread.stop()
    }

    private func run() {
        var backoff = Self.initialBackoff
        while !thread.isStopping {
            do {
                let connection = try PostgresConnection(configuration: configuration, logger: logger)
                defer { connection.close() }
                try connection.listen(to: channels)
                logger.debug("postgres listener subscribed", metadata: ["db.channels": channels.joined(separator: ",")])
                backoff = Self.initialBackoff
                try deliver(from: connection)
            } catch {
                logger.debug("postgres listener disconnected", metadata: ["db.error": "\(error)", "db.retry_in": "\(backoff)"])
                thread.pause(for: backoff)
                backoff = min(backoff * 2, Self.maximumBackoff)
            }
        }
    }

    /// Hands notifications to the handler until `stop()` or a lost connection (which throws).
    private func deliver(from connection: PostgresConnection) throws {
        while !thread.isStopping {
            for notification in try connection.waitForNotifications(timeoutMilliseconds: 100) {
                handler(notification.channel, notification.payload)
            }
        }
    }

    private static let initialBackoff: Duration = .milliseconds(100)
    private static let maximumBackoff: Duration = .seconds(5)
}
