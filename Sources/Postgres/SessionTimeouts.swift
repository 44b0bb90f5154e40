/// PostgreSQL's per-session limits on how long a statement runs, waits for a lock, or leaves
/// a transaction open doing nothing. Zero turns a limit off.
///
/// ```swift
/// var options = PostgresClient.Options()
/// options.sessionTimeouts.lock = .seconds(2)
/// ```
/// A statement past a limit fails with `.queryCanceled` (statement) or `.lockNotAvailable` (lock);
/// a session idle in a transaction past its limit is ended by the server, and the pool replaces it.
public struct SessionTimeouts: Sendable, Hashable {
    /// `statement_timeout`: the longest one statement may run. Default 30 s.
    public var statement: Duration = .seconds(30)
    /// `lock_timeout`: the longest a statement waits for a lock (rows, tables, advisory locks). Default 10 s.
    public var lock: Duration = .seconds(10)
    /// `idle_in_transaction_session_timeout`: how long a transaction may stay open between statements. Default 30 s.
    public var idleInTransaction: Duration = .seconds(30)

    public init() {}

    /// The settings as server parameters, in milliseconds.
    var settings: [(name: String, milliseconds: Int)] {
        [
            ("statement_timeout", Self.milliseconds(statement)), ("lock_timeout", Self.milliseconds(lock)),
            ("idle_in_transaction_session_timeout", Self.milliseconds(idleInTransaction)),
        ]
    }

    /// `configuration` with the limits added to the session options libpq sends at connect.
    func applied(to configuration: PostgresConfiguration) -> PostgresConfiguration {
        var copy = configuration
        let flags = settings.map { "-c \($0.name)=\($0.milliseconds)" }.joined(separator: " ")
        // An `options` given with the configuration (e.g. in DATABASE_URL) comes last and so wins.
        copy.parameters["options"] = [flags, configuration.parameters["options"]].compactMap { $0 }.joined(separator: " ")
        return copy
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return max(0, Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000))
    }
}
