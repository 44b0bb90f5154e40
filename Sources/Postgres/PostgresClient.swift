import CLibPQ
import Dispatch
public import Support
import Synchronization

/// A pool of `PostgresConnection`s shared by worker threads.
///
/// Connections open lazily up to `Options.maxConnections`. A caller that finds them all leased
/// waits (first come, first served) up to `Options.acquireTimeout`, then gets
/// `PostgresError(.poolTimeout)`. Connections found broken are replaced; a connection returned
/// with a transaction still open is rolled back first.
///
/// ```swift
/// let client = PostgresClient(configuration: configuration, logger: logger)
/// let count = try client.withConnection { try $0.query("SELECT count(*) FROM devices")[0].decode(0, as: Int.self) }
/// try client.withTransaction { db in try db.execute("UPDATE counters SET value = value + 1") }
/// client.shutdown()
/// ```
public final class PostgresClient: Sendable {
    /// Pool limits.
    public struct Options: Sendable {
        /// The most connections open at once (idle plus leased). Default 16.
        public var maxConnections = 16
        /// How long `withConnection` waits for a free connection before throwing `.poolTimeout`. Default 5 s.
        public var acquireTimeout: Duration = .seconds(5)
        /// The server-side limits set on every pooled connection, so one stuck statement or
        /// transaction cannot hold locks (and with them every writer) for ever.
        public var sessionTimeouts = SessionTimeouts()

        public init() {}
    }

    /// The pool's state plus the semaphore each queued caller sleeps on, guarded together.
    private struct Shared {
        var pool: PoolState<PostgresConnection>
        var sleepers: [PoolState<PostgresConnection>.WaiterID: DispatchSemaphore] = [:]

        mutating func wake(_ waiter: PoolState<PostgresConnection>.WaiterID?) {
            if let waiter { sleepers.removeValue(forKey: waiter)?.signal() }
        }
    }

    public let configuration: PostgresConfiguration
    public let options: Options
    /// `configuration` plus the session timeouts, used for every connection the pool opens.
    private let sessionConfiguration: PostgresConfiguration
    private let logger: Logger
    private let shared: Mutex<Shared>

    public init(configuration: PostgresConfiguration, options: Options = .init(), logger: Logger) {
        self.configuration = configuration
        sessionConfiguration = options.sessionTimeouts.applied(to: configuration)
        self.options = options
        self.logger = logger
        shared = Mutex(Shared(pool: PoolState(maxConnections: options.maxConnections)))
    }

    /// Leases a connection for the duration of `body`.
    /// - Throws: `PostgresError(.poolTimeout)` when none frees up in time, `.poolClosed` after
    ///   `shutdown()`, `.connectionFailed` when a new connection cannot be opened, or what `body` throws.
    @discardableResult
    public func withConnection<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        let connection = try acquire()
        defer { release(connection) }
        return try body(connection)
    }

    /// Leases a connection and runs `body` in a transaction on it (see `PostgresConnection.transaction`).
    @discardableResult
    public func withTransaction<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try withConnection { connection in try connection.transaction(body) }
    }

    /// Closes idle connections and refuses new leases; leased connections close when returned.
    public func shutdown() {
        let closing = shared.withLock { shared in
            let (closing, woken) = shared.pool.shutdown()
            for waiter in woken { shared.wake(waiter) }
            return closing
        }
        for connection in closing { connection.close() }
        logger.debug("postgres pool shut down")
    }

    // MARK: - Leasing

    private func acquire() throws -> PostgresConnection {
        let deadline = DispatchTime.now() + options.acquireTimeout.dispatchInterval
        while true {
            let sleeper = DispatchSemaphore(value: 0)
            let action = shared.withLock { shared in
                let action = shared.pool.acquire()
                if case .wait(let waiter) = action { shared.sleepers[waiter] = sleeper }
                return action
            }
            let candidate: PostgresConnection
            switch action {
            case .use(let connection): candidate = connection
            case .open: return try open()
            case .fail: throw Self.closedError
            case .wait(let waiter):
                switch waitForGrant(waiter, on: sleeper, until: deadline) {
                case .connection(let connection): candidate = connection
                case .open: return try open()
                case .closed: throw Self.closedError
                case nil: throw timeoutError()
                }
            }
            // An idle connection may have lost its backend (server restart, pg_terminate_backend).
            if !candidate.isBroken { return candidate }
            logger.debug("postgres pool replacing a broken connection")
            discard(candidate)
        }
    }

    /// Sleeps until woken or the deadline passes, then collects whatever was granted.
    private func waitForGrant(
        _ waiter: PoolState<PostgresConnection>.WaiterID, on sleeper: DispatchSemaphore, until deadline: DispatchTime
    ) -> PoolState<PostgresConnection>.Grant? {
        _ = sleeper.wait(timeout: deadline)
        // Collecting under the lock settles the race between a timeout and a late grant: a grant
        // that arrived in between is still taken, and after this no one will grant to this waiter.
        return shared.withLock { shared in
            shared.sleepers[waiter] = nil
            return shared.pool.collect(waiter)
        }
    }

    private func open() throws -> PostgresConnection {
        do {
            return try PostgresConnection(configuration: sessionConfiguration, logger: logger)
        } catch {
            shared.withLock { shared in shared.wake(shared.pool.openFailed()) }
            throw error
        }
    }

    private func release(_ connection: PostgresConnection) {
        var reusable = connection.transactionStatus == PQTRANS_IDLE
        if !reusable, connection.transactionStatus != PQTRANS_UNKNOWN {
            // The body left a transaction open (a manual BEGIN, or an error mid-way): never lend it out so.
            try? connection.executeScript("ROLLBACK")
            reusable = connection.transactionStatus == PQTRANS_IDLE
        }
        settle(connection, reusable: reusable)
    }

    private func discard(_ connection: PostgresConnection) {
        settle(connection, reusable: false)
    }

    private func settle(_ connection: PostgresConnection, reusable: Bool) {
        // The caller's connection enters the lock-guarded state here, which region checking cannot
        // prove safe on its own: the caller gives up its lease and never touches it again.
        let transfer = UnsafeTransfer(connection)
        let closing = shared.withLock { shared in
            let action = shared.pool.release(transfer.value, reusable: reusable)
            shared.wake(action.wake)
            return UnsafeTransfer(action.close)
        }
        closing.value?.close()
    }

    // MARK: - Errors

    private static var closedError: PostgresError {
        PostgresError(code: .poolClosed, message: "the PostgreSQL pool has been shut down")
    }

    private func timeoutError() -> PostgresError {
        PostgresError(
            code: .poolTimeout,
            message: "no PostgreSQL connection became free within \(options.acquireTimeout) (all \(options.maxConnections) are leased); "
                + "a caller holds one too long, or nests withConnection on the same pool")
    }
}

/// Moves a non-`Sendable` value across the pool's lock boundary.
///
/// Safe because a `PostgresConnection` is only ever reachable from one place at a time: the pool's
/// state (guarded by its `Mutex`) or the single caller that leased it.
package struct UnsafeTransfer<Value>: @unchecked Sendable {
    package let value: Value

    package init(_ value: Value) {
        self.value = value
    }
}

extension Duration {
    /// The duration as a Dispatch interval, in nanoseconds.
    var dispatchInterval: DispatchTimeInterval {
        let (seconds, attoseconds) = components
        return .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
    }
}
