public import Postgres
public import Support
import Synchronization

/// Tells this process when another FieldSync process changed accounts (a suspension, a revoked
/// token) or the settings: the stores announce such changes with `NOTIFY` at commit, and the
/// features here drop what they cached.
///
/// ```swift
/// notifications.on(.settings) { settings.invalidate() }
/// notifications.on(.accounts) { authenticator.forgetAll() }
/// try notifications.start()
/// ```
public final class ChangeNotifications: Service {
    /// What changed.
    public enum Topic: Sendable, CaseIterable {
        case accounts, settings

        var channel: String {
            switch self {
            case .accounts: PostgresAccountStore.changeChannel
            case .settings: PostgresSettingsStore.changeChannel
            }
        }
    }

    public let name = "change-notifications"
    private let handlers = Mutex<[String: [@Sendable () -> Void]]>([:])
    private let listener = Mutex<PostgresListener?>(nil)
    private let configuration: PostgresConfiguration
    private let logger: Logger

    public init(database configuration: PostgresConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    /// Calls `handler` (on the listener's thread) whenever `topic` changes elsewhere; register
    /// before `start()`.
    public func on(_ topic: Topic, _ handler: @escaping @Sendable () -> Void) {
        handlers.withLock { $0[topic.channel, default: []].append(handler) }
    }

    public func start() {
        let handlers = self.handlers.withLock { $0 }
        let listener = PostgresListener(configuration: configuration, channels: Topic.allCases.map(\.channel), logger: logger) { channel, _ in
            for handler in handlers[channel] ?? [] { handler() }
        }
        self.listener.withLock { $0 = listener }
        listener.start()
    }

    public func stop() {
        listener.withLock { $0 }?.stop()
    }
}
