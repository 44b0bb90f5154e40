/// The pool's bookkeeping as a pure state machine: each event returns what the caller must do
/// (open, close, wake a waiter), so the rules are tested without threads or a server.
///
/// `Connection` is generic so tests can use plain integers.
struct PoolState<Connection> {
    typealias WaiterID = Int

    /// What a waiting caller is given when it is woken.
    enum Grant {
        /// A free connection, now leased to the waiter.
        case connection(Connection)
        /// Room to open a new connection (one slot is reserved for the waiter).
        case open
        /// The pool shut down.
        case closed
    }

    enum AcquireAction {
        case use(Connection)
        case open
        case wait(WaiterID)
        case fail
    }

    /// What to do after a connection comes back or a slot frees up.
    struct ReleaseAction {
        var close: Connection?
        var wake: WaiterID?
    }

    let maxConnections: Int
    private var idle: [Connection] = []
    /// Connections that exist or are being opened: idle + leased + opening.
    private(set) var count = 0
    private var waiting: [WaiterID] = []
    private var grants: [WaiterID: Grant] = [:]
    private var nextWaiterID = 0
    private(set) var isShutdown = false

    init(maxConnections: Int) {
        precondition(maxConnections > 0, "a pool needs at least one connection")
        self.maxConnections = maxConnections
    }

    var idleCount: Int { idle.count }

    /// A caller wants a connection: reuse an idle one, open one, or queue.
    mutating func acquire() -> AcquireAction {
        if isShutdown { return .fail }
        if let connection = idle.popLast() { return .use(connection) }
        if count < maxConnections {
            count += 1
            return .open
        }
        nextWaiterID += 1
        waiting.append(nextWaiterID)
        return .wait(nextWaiterID)
    }

    /// A leased connection comes back; `reusable` is false when it broke or could not be reset.
    mutating func release(_ connection: Connection, reusable: Bool) -> ReleaseAction {
        guard reusable, !isShutdown else {
            count -= 1
            return ReleaseAction(close: connection, wake: grantToNextWaiter(.open))
        }
        if let waiter = grantToNextWaiter(.connection(connection)) { return ReleaseAction(wake: waiter) }
        idle.append(connection)
        return ReleaseAction()
    }

    /// Opening a connection failed: its reserved slot is free again.
    mutating func openFailed() -> WaiterID? {
        count -= 1
        return grantToNextWaiter(.open)
    }

    /// A woken or timed-out waiter collects its grant; nil means it timed out before any arrived,
    /// and it has been removed from the queue.
    mutating func collect(_ waiter: WaiterID) -> Grant? {
        if let grant = grants.removeValue(forKey: waiter) { return grant }
        waiting.removeAll { $0 == waiter }
        return nil
    }

    /// Refuses new acquisitions; returns the idle connections to close and the waiters to wake.
    mutating func shutdown() -> (close: [Connection], wake: [WaiterID]) {
        isShutdown = true
        let closing = idle
        idle.removeAll()
        count -= closing.count
        let woken = waiting
        for waiter in woken { grants[waiter] = .closed }
        waiting.removeAll()
        return (closing, woken)
    }

    /// Hands a grant to the longest-waiting caller, if any (an `.open` grant takes a slot for it).
    private mutating func grantToNextWaiter(_ grant: Grant) -> WaiterID? {
        guard !isShutdown, !waiting.isEmpty else { return nil }
        let waiter = waiting.removeFirst()
        if case .open = grant { count += 1 }
        grants[waiter] = grant
        return waiter
    }
}
