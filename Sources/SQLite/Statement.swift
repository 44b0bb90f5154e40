import CSQLite
public import Foundation

/// One prepared statement, finalized when the last reference goes away.
///
/// Statements come from a ``Database`` (which caches them per SQL text) and are used only
/// on its queue. The column accessors read the current row straight from SQLite, for
/// ``StatementColumnConvertible`` types; text and blobs are copied out of SQLite's memory.
public final class Statement {
    /// The `sqlite3_stmt`; valid until `deinit`.
    let handle: OpaquePointer
    public let sql: String

    init(connection: OpaquePointer, sql: String) throws {
        var prepared: OpaquePointer?
        // > If there is an error, *ppStmt is set to NULL.
        try SQLiteError.check(sqlite3_prepare_v2(connection, sql, -1, &prepared, nil), connection, sql: sql)
        guard let prepared else { throw SQLiteError(code: .misuse, message: "no statement in the SQL text", sql: sql) }
        handle = prepared
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    /// Binds `arguments`, which must match the statement's parameter count.
    func bind(_ arguments: StatementArguments) throws {
        let expected = Int(sqlite3_bind_parameter_count(handle))
        guard arguments.values.count == expected else {
            throw SQLiteError(code: .misuse, message: "expected \(expected) arguments, got \(arguments.values.count)", sql: sql)
        }
        for (offset, value) in arguments.values.enumerated() {
            try SQLiteError.check(bind(value, at: Int32(offset + 1)), sqlite3_db_handle(handle), sql: sql)
        }
    }

    /// `SQLITE_TRANSIENT`: SQLite copies text and blobs before the call returns.
    private func bind(_ value: DatabaseValue, at index: Int32) -> Int32 {
        switch value {
        case .null: sqlite3_bind_null(handle, index)
        case .integer(let number): sqlite3_bind_int64(handle, index, number)
        case .real(let number): sqlite3_bind_double(handle, index, number)
        case .text(let text): sqlite3_bind_text(handle, index, text, -1, CSQLite_transient())
        case .blob(let data):
            data.withUnsafeBytes { sqlite3_bind_blob(handle, index, $0.baseAddress, Int32($0.count), CSQLite_transient()) }
        }
    }

    /// Advances to the next row: true when one is available, false when the statement is done.
    func step() throws -> Bool {
        let code = sqlite3_step(handle)
        if code == SQLITE_DONE { return false }
        try SQLiteError.check(code, sqlite3_db_handle(handle), sql: sql, success: SQLITE_ROW)
        return true
    }

    /// Makes the statement ready to run again and drops its bindings.
    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    // MARK: - Columns of the current row

    public var columnCount: Int { Int(sqlite3_column_count(handle)) }

    public func columnName(at index: Int) -> String { String(cString: sqlite3_column_name(handle, Int32(index))) }

    public func isNull(at index: Int) -> Bool { sqlite3_column_type(handle, Int32(index)) == SQLITE_NULL }

    public func int64(at index: Int) -> Int64 { sqlite3_column_int64(handle, Int32(index)) }

    public func double(at index: Int) -> Double { sqlite3_column_double(handle, Int32(index)) }

    /// The column as text; empty for NULL.
    public func text(at index: Int) -> String {
        guard let bytes = sqlite3_column_text(handle, Int32(index)) else { return "" }
        return String(cString: bytes)
    }

    /// The column as bytes, copied out of SQLite's buffer.
    public func blob(at index: Int) -> Data {
        let count = Int(sqlite3_column_bytes(handle, Int32(index)))
        guard count > 0, let bytes = sqlite3_column_blob(handle, Int32(index)) else { return Data() }
        return Data(bytes: bytes, count: count)
    }

    /// The column with its storage class.
    public func value(at index: Int) -> DatabaseValue {
        switch sqlite3_column_type(handle, Int32(index)) {
        case SQLITE_INTEGER: .integer(int64(at: index))
        case SQLITE_FLOAT: .real(double(at: index))
        case SQLITE_TEXT: .text(text(at: index))
        case SQLITE_BLOB: .blob(blob(at: index))
        default: .null
        }
    }
}
