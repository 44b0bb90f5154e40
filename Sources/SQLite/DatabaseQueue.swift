import CSQLite
import Dispatch
import Foundation
import Synchronization

/// Settings of a ``DatabaseQueue``.
public struct Configuration: Sendable {
    /// How long a statement waits for a lock held by another connection (e.g. another
    /// process on the same file) before failing with `busy`.
    public var busyTimeoutMilliseconds = 5_000
    /// The name of the queue, as debuggers and crash logs show it.
    public var label = "SQLite.DatabaseQueue"

    public init() {}
}

/// A SQLite connection behind one serial dispatch queue (GRDB's `DatabaseQueue`): the only
/// way to reach a ``Database``.
///
/// Reads and writes run one at a time on the queue. `write` wraps its body in an immediate
/// transaction, so everything it changes commits together or not at all. The async
/// variants leave the caller's thread free while SQLite works (and a cancelled task
/// interrupts its own statement); the synchronous ones suit command-line tools and tests.
///
/// ```swift
/// let queue = try DatabaseQueue(path: "device.sqlite")
/// try await queue.write { db in
///     try db.execute("INSERT INTO outbox (client_seq, op_id) VALUES (?, ?)", [seq, opId])
/// }
/// let count = try await queue.read { db in try db.value(Int.self, "SELECT count(*) FROM outbox") }
/// ```
public final class DatabaseQueue: @unchecked Sendable {
    // @unchecked: `database` is only touched on `queue`; `interrupts` is a Mutex.
    public let path: String
    private let queue: DispatchQueue
    private let database: Database
    private let interrupts: InterruptGate

    /// Opens (creating if needed) the database file at `path`; ":memory:" for a private one.
    /// - Throws: `SQLiteError` when the file cannot be opened or configured.
    public init(path: String, configuration: Configuration = Configuration()) throws {
        self.path = path
        let queue = DispatchQueue(label: configuration.label)
        self.queue = queue
        let database = try queue.sync { try Database(path: path, configuration: configuration, owner: queue) }
        self.database = database
        interrupts = InterruptGate(connection: queue.sync { database.handle })
    }

    /// Finalizes the statements and closes the connection; later calls fail with `misuse`.
    public func close() throws {
        dispatchPrecondition(condition: .notOnQueue(queue))
        try queue.sync {
            interrupts.close()
            try database.close()
        }
    }

    // MARK: - Blocking access

    /// Runs `body` in a read-only transaction (a consistent snapshot) and returns its result.
    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        dispatchPrecondition(condition: .notOnQueue(queue))
        return try queue.sync { try Self.read(database, body) }
    }

    /// Runs `body` in an immediate transaction: committed when it returns, rolled back when it throws.
    public func write<T>(_ body: (Database) throws -> T) throws -> T {
        dispatchPrecondition(condition: .notOnQueue(queue))
        return try queue.sync { try database.inTransaction("IMMEDIATE") { try body(database) } }
    }

    /// Runs `body` outside any transaction (pragmas, VACUUM); statements autocommit one by one.
    public func writeWithoutTransaction<T>(_ body: (Database) throws -> T) throws -> T {
        dispatchPrecondition(condition: .notOnQueue(queue))
        return try queue.sync { try body(database) }
    }

    // MARK: - Async access

    /// ``read(_:)`` without blocking the caller's thread.
    public func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await perform { database in try Self.read(database, body) }
    }

    /// ``write(_:)`` without blocking the caller's thread.
    public func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await perform { database in try database.inTransaction("IMMEDIATE") { try body(database) } }
    }

    /// Runs `job` on the queue; cancelling the task interrupts the job's running statement,
    /// and never another job's (the gate knows which job runs).
    private func perform<T: Sendable>(_ job: @escaping @Sendable (Database) throws -> T) async throws -> T {
        let ticket = interrupts.newTicket()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                queue.async { [self] in
                    continuation.resume(
                        with: Result {
                            try interrupts.running(ticket) { try job(database) }
                        })
                }
            }
        } onCancel: {
            interrupts.interrupt(ticket)
        }
    }

    private static func read<T>(_ database: Database, _ body: (Database) throws -> T) throws -> T {
        try database.inTransaction("DEFERRED") {
            // query_only turns an accidental write inside a read into an error.
            try database.execute("PRAGMA query_only = 1")
            defer { try? database.execute("PRAGMA query_only = 0") }
            return try body(database)
        }
    }
}

/// Which async job runs on the queue, so that cancelling one calls `sqlite3_interrupt` only
/// while that job runs, and a job cancelled before its turn never starts.
private final class InterruptGate: @unchecked Sendable {
    // @unchecked: `connection` is immutable and only used under `state`'s lock, which
    // `close()` also takes before the connection closes.
    private struct State {
        var nextTicket: UInt64 = 0
        var waiting: Set<UInt64> = []
        var cancelled: Set<UInt64> = []
        var running: UInt64?
        var isClosed = false
    }

    private let connection: OpaquePointer?
    private let state = Mutex(State())

    init(connection: OpaquePointer?) { self.connection = connection }

    func newTicket() -> UInt64 {
        state.withLock { state in
            state.nextTicket += 1
            state.waiting.insert(state.nextTicket)
            return state.nextTicket
        }
    }

    /// Runs `job` as `ticket`, unless the ticket was cancelled while it waited.
    func running<T>(_ ticket: UInt64, _ job: () throws -> T) throws -> T {
        let cancelled = state.withLock { state in
            state.waiting.remove(ticket)
            guard state.cancelled.remove(ticket) == nil else { return true }
            state.running = ticket
            return false
        }
        if cancelled { throw CancellationError() }
        defer { state.withLock { $0.running = nil } }
        return try job()
    }

    func interrupt(_ ticket: UInt64) {
        state.withLock { state in
            if state.running == ticket, !state.isClosed, let connection {
                // > It is safe to call this routine from a thread different from the thread
                // > that is currently running the database operation.
                sqlite3_interrupt(connection)
            } else if state.waiting.contains(ticket) {
                state.cancelled.insert(ticket)
            }
        }
    }

    func close() {
        state.withLock { $0.isClosed = true }
    }
}
