import CSQLite
import Dispatch
import Foundation

/// One SQLite connection, reachable only inside ``DatabaseQueue/read(_:)`` and
/// ``DatabaseQueue/write(_:)`` (GRDB's `Database`). It is not `Sendable`: its queue owns it,
/// and every call checks that it runs there.
///
/// Statements are prepared once per SQL text and cached until the connection closes.
///
/// ```swift
/// try queue.write { db in
///     try db.execute("INSERT INTO outbox (client_seq, op_id) VALUES (?, ?)", [seq, opId])
///     let pending = try db.value(Int.self, "SELECT count(*) FROM outbox") ?? 0
/// }
/// ```
public final class Database {
    /// The `sqlite3` connection; nil once closed.
    private(set) var handle: OpaquePointer?
    private var statements: [String: Statement] = [:]
    /// The serial queue that owns this connection (the watchdog's reference).
    private let owner: DispatchQueue

    /// Opens (creating if needed) the database at `path`, on `owner`, in WAL mode with full
    /// synchronous commits: a committed transaction survives a crash or a power cut.
    init(path: String, configuration: Configuration, owner: DispatchQueue) throws {
        self.owner = owner
        var opened: OpaquePointer?
        let code = sqlite3_open_v2(path, &opened, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        guard code == SQLITE_OK else {
            // > A database connection handle is usually returned, even on error.
            defer { sqlite3_close_v2(opened) }
            try SQLiteError.check(code, opened)
            throw SQLiteError(code: .error, message: "sqlite3_open_v2 failed")
        }
        handle = opened
        do {
            try SQLiteError.check(sqlite3_busy_timeout(opened, Int32(configuration.busyTimeoutMilliseconds)), opened)
            try execute("PRAGMA journal_mode = WAL")
            try execute("PRAGMA synchronous = FULL")
            try execute("PRAGMA foreign_keys = ON")
        } catch {
            sqlite3_close_v2(opened)
            handle = nil
            throw error
        }
    }

    deinit {
        // Best effort: close_v2 defers the close until any statement still alive is finalized.
        statements.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Finalizes the cached statements and closes the connection; later calls fail with `misuse`.
    func close() throws {
        preconditionOnOwner()
        statements.removeAll()
        guard let handle else { return }
        self.handle = nil
        try SQLiteError.check(sqlite3_close(handle), nil)
    }

    // MARK: - Running SQL

    /// Runs one statement that returns no rows.
    public func execute(_ sql: String, _ arguments: StatementArguments = []) throws {
        try run(sql, arguments) { statement in
            while try statement.step() {}
        }
    }

    /// Runs several `;`-separated statements without arguments (schema scripts).
    public func executeScript(_ sql: String) throws {
        preconditionOnOwner()
        guard let handle else { throw Self.closedError(sql) }
        try SQLiteError.check(sqlite3_exec(handle, sql, nil, nil, nil), handle, sql: sql)
    }

    /// Every row of a query, copied out.
    public func rows(_ sql: String, _ arguments: StatementArguments = []) throws -> [Row] {
        try run(sql, arguments) { statement in
            var rows: [Row] = []
            while try statement.step() { rows.append(Row(statement)) }
            return rows
        }
    }

    /// The first row of a query, or nil.
    public func row(_ sql: String, _ arguments: StatementArguments = []) throws -> Row? {
        try run(sql, arguments) { statement in try statement.step() ? Row(statement) : nil }
    }

    /// The first column of every row, read through the fast path; NULLs are skipped.
    public func values<T: StatementColumnConvertible>(_ type: T.Type, _ sql: String, _ arguments: StatementArguments = []) throws -> [T] {
        try run(sql, arguments) { statement in
            var values: [T] = []
            while try statement.step() {
                if !statement.isNull(at: 0) { values.append(T(statement: statement, column: 0)) }
            }
            return values
        }
    }

    /// The first column of the first row; nil when there is no row or it is NULL.
    public func value<T: StatementColumnConvertible>(_ type: T.Type, _ sql: String, _ arguments: StatementArguments = []) throws -> T? {
        try run(sql, arguments) { statement in
            guard try statement.step(), !statement.isNull(at: 0) else { return nil }
            return T(statement: statement, column: 0)
        }
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    public var changesCount: Int {
        preconditionOnOwner()
        return Int(sqlite3_changes(handle))
    }

    /// Whether a transaction is open on this connection.
    public var isInsideTransaction: Bool {
        preconditionOnOwner()
        return handle.map { sqlite3_get_autocommit($0) == 0 } ?? false
    }

    // MARK: - Statements and transactions

    /// The cached statement for `sql`, prepared on first use.
    public func cachedStatement(_ sql: String) throws -> Statement {
        preconditionOnOwner()
        if let cached = statements[sql] { return cached }
        guard let handle else { throw Self.closedError(sql) }
        let statement = try Statement(connection: handle, sql: sql)
        statements[sql] = statement
        return statement
    }

    /// Runs `body` inside `BEGIN <kind>` … `COMMIT`, rolling back when it throws.
    func inTransaction<T>(_ kind: String, _ body: () throws -> T) throws -> T {
        try execute("BEGIN \(kind) TRANSACTION")
        do {
            let value = try body()
            try execute("COMMIT TRANSACTION")
            return value
        } catch {
            // A failed COMMIT or an interrupted statement may already have ended the transaction.
            if isInsideTransaction { try? execute("ROLLBACK TRANSACTION") }
            throw error
        }
    }

    private func run<T>(_ sql: String, _ arguments: StatementArguments, _ body: (Statement) throws -> T) throws -> T {
        let statement = try cachedStatement(sql)
        defer { statement.reset() }
        try statement.bind(arguments)
        return try body(statement)
    }

    /// The watchdog: a connection used from another thread than its queue is a bug.
    private func preconditionOnOwner() {
        dispatchPrecondition(condition: .onQueue(owner))
    }

    private static func closedError(_ sql: String) -> SQLiteError {
        SQLiteError(code: .misuse, message: "the database is closed", sql: sql)
    }
}
