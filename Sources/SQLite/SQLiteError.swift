import CSQLite

/// A failed SQLite call: the result code, SQLite's message and the statement involved.
///
/// `description` never shows the SQL (it may carry values spliced in by a caller);
/// `debugDescription` does.
public struct SQLiteError: Error, CustomStringConvertible, CustomDebugStringConvertible {
    /// A primary or extended SQLite result code.
    public struct ResultCode: RawRepresentable, Hashable, Sendable {
        public let rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        public static let error = ResultCode(rawValue: SQLITE_ERROR)
        public static let busy = ResultCode(rawValue: SQLITE_BUSY)
        public static let interrupt = ResultCode(rawValue: SQLITE_INTERRUPT)
        public static let ioError = ResultCode(rawValue: SQLITE_IOERR)
        public static let corrupt = ResultCode(rawValue: SQLITE_CORRUPT)
        public static let full = ResultCode(rawValue: SQLITE_FULL)
        public static let constraint = ResultCode(rawValue: SQLITE_CONSTRAINT)
        public static let mismatch = ResultCode(rawValue: SQLITE_MISMATCH)
        public static let misuse = ResultCode(rawValue: SQLITE_MISUSE)

        /// The primary code (extended codes carry it in their low byte).
        public var primary: ResultCode { ResultCode(rawValue: rawValue & 0xff) }
    }

    public let code: ResultCode
    public let message: String
    public let sql: String?

    public init(code: ResultCode, message: String, sql: String? = nil) {
        self.code = code
        self.message = message
        self.sql = sql
    }

    public var description: String { "SQLite error \(code.rawValue): \(message)" }

    public var debugDescription: String { description + (sql.map { " in «\($0)»" } ?? "") }

    /// Funnels a result code into a thrown error, reading the connection's message.
    static func check(_ code: Int32, _ handle: OpaquePointer?, sql: String? = nil, success: Int32 = SQLITE_OK) throws {
        guard code != success else { return }
        throw SQLiteError(code: ResultCode(rawValue: code), message: handle.map { String(cString: sqlite3_errmsg($0)) } ?? "unknown", sql: sql)
    }
}
