import CSQLite
import Foundation

/// One SQLite connection, owned by a single thread or serial queue at a time (not `Sendable`).
///
/// Statements are prepared once per SQL text and cached; binds use `SQLITE_TRANSIENT`, so
/// SQLite copies every value it is given.
///
/// ```swift
/// let db = try SQLiteDatabase(path: "outbox.sqlite")
/// try db.execute("CREATE TABLE IF NOT EXISTS op_log (op_id TEXT PRIMARY KEY, body TEXT)")
/// try db.transaction {
///     try db.execute("INSERT INTO op_log VALUES (?, ?)", ["op-1", "{}"])
/// }
/// let rows = try db.query("SELECT op_id FROM op_log")
/// ```
public final class SQLiteDatabase {
    private var handle: OpaquePointer?
    private var statements: [String: OpaquePointer] = [:]

    /// Opens (creating if needed) the database at `path`; ":memory:" for a private in-memory one.
    public init(path: String) throws {
        var opened: OpaquePointer?
        let code = sqlite3_open_v2(path, &opened, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        guard code == SQLITE_OK else {
            defer { sqlite3_close_v2(opened) }  // > A database connection handle is usually returned, even on error.
            try SQLiteError.check(code, opened)
            return
        }
        handle = opened
        // The outbox must survive crashes: WAL with full synchronous commits.
        try execute("PRAGMA journal_mode = WAL")
        try execute("PRAGMA synchronous = FULL")
        try execute("PRAGMA foreign_keys = ON")
    }

    deinit { close() }

    /// Finalizes cached statements and closes the connection; later calls fail with `misuse`.
    public func close() {
        for statement in statements.values { sqlite3_finalize(statement) }
        statements.removeAll()
        sqlite3_close_v2(handle)
        handle = nil
    }

    /// Runs a statement that returns no rows; returns the number of rows changed.
    @discardableResult
    public func execute(_ sql: String, _ arguments: [SQLiteValue] = []) throws -> Int {
        _ = try query(sql, arguments)
        return Int(sqlite3_changes(handle))
    }

    /// Runs a statement and returns every row as column name → value.
    public func query(_ sql: String, _ arguments: [SQLiteValue] = []) throws -> [[String: SQLiteValue]] {
        let statement = try prepared(sql)
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        try bind(arguments, to: statement, sql: sql)
        var rows: [[String: SQLiteValue]] = []
        while true {
            let code = sqlite3_step(statement)
            if code == SQLITE_DONE { return rows }
            try SQLiteError.check(code, handle, sql: sql, success: SQLITE_ROW)
            rows.append(Self.row(statement))
        }
    }

    /// Runs `body` in an immediate transaction: committed when it returns, rolled back when it throws.
    @discardableResult
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            _ = try? execute("ROLLBACK")
            throw error
        }
    }

    private func prepared(_ sql: String) throws -> OpaquePointer {
        if let cached = statements[sql] { return cached }
        guard let handle else { throw SQLiteError(code: .misuse, message: "the database is closed", sql: sql) }
        var statement: OpaquePointer?
        try SQLiteError.check(sqlite3_prepare_v2(handle, sql, -1, &statement, nil), handle, sql: sql)
        guard let statement else { throw SQLiteError(code: .misuse, message: "empty statement", sql: sql) }
        statements[sql] = statement
        return statement
    }

    private func bind(_ arguments: [SQLiteValue], to statement: OpaquePointer, sql: String) throws {
        guard arguments.count == Int(sqlite3_bind_parameter_count(statement)) else {
            throw SQLiteError(code: .misuse, message: "expected \(sqlite3_bind_parameter_count(statement)) arguments, got \(arguments.count)", sql: sql)
        }
        for (offset, value) in arguments.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch value {
            case .null: code = sqlite3_bind_null(statement, index)
            case .integer(let number): code = sqlite3_bind_int64(statement, index, number)
            case .real(let number): code = sqlite3_bind_double(statement, index, number)
            case .text(let text): code = sqlite3_bind_text(statement, index, text, -1, CSQLite_transient())
            case .blob(let data):
                code = data.withUnsafeBytes { sqlite3_bind_blob(statement, index, $0.baseAddress, Int32($0.count), CSQLite_transient()) }
            }
            try SQLiteError.check(code, handle, sql: sql)
        }
    }

    /// Copies the current row out of SQLite's memory.
    private static func row(_ statement: OpaquePointer) -> [String: SQLiteValue] {
        var row: [String: SQLiteValue] = [:]
        for column in 0..<sqlite3_column_count(statement) {
            let name = String(cString: sqlite3_column_name(statement, column))
            switch sqlite3_column_type(statement, column) {
            case SQLITE_INTEGER: row[name] = .integer(sqlite3_column_int64(statement, column))
            case SQLITE_FLOAT: row[name] = .real(sqlite3_column_double(statement, column))
            case SQLITE_TEXT: row[name] = .text(String(cString: sqlite3_column_text(statement, column)))
            case SQLITE_BLOB:
                let count = Int(sqlite3_column_bytes(statement, column))
                row[name] = .blob(count == 0 ? Data() : Data(bytes: sqlite3_column_blob(statement, column), count: count))
            default: row[name] = .null
            }
        }
        return row
    }
}
