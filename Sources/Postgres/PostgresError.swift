/// An error from PostgreSQL or from this module's use of it.
///
/// Server errors carry the SQLSTATE `code` and the fields PostgreSQL reports with it; errors that
/// never reached a server (a refused connection, an exhausted pool, a column that does not decode)
/// use the module's own codes, which are not five-character SQLSTATEs.
///
/// ```swift
/// do {
///     try connection.execute("INSERT INTO users (email) VALUES (\(email))")
/// } catch let error as PostgresError where error.code == .uniqueViolation {
///     print(error.constraint ?? "?")   // "users_email_key"
/// }
/// ```
///
/// `description` shows the code, message and constraint only; `debugDescription` adds the detail
/// (which may quote row values), the hint and the SQL text.
public struct PostgresError: Error, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    public var code: Code
    public var message: String
    public var detail: String?
    public var hint: String?
    public var constraint: String?
    public var sql: String?

    public init(
        code: Code, message: String, detail: String? = nil, hint: String? = nil, constraint: String? = nil, sql: String? = nil
    ) {
        self.code = code
        self.message = message
        self.detail = detail
        self.hint = hint
        self.constraint = constraint
        self.sql = sql
    }

    public var description: String {
        let constraintText = constraint.map { " (constraint \($0))" } ?? ""
        return "PostgresError[\(code.rawValue)]: \(message)\(constraintText)"
    }

    public var debugDescription: String {
        var text = description
        if let detail { text += "\nDETAIL: \(detail)" }
        if let hint { text += "\nHINT: \(hint)" }
        if let sql { text += "\nSQL: \(sql)" }
        return text
    }

    static func invalidConfiguration(_ message: String) -> PostgresError {
        PostgresError(code: .invalidConfiguration, message: message)
    }

    static func decoding(_ message: String) -> PostgresError {
        PostgresError(code: .decoding, message: message)
    }
}

extension PostgresError {
    /// A SQLSTATE from the server, or one of this module's client-side codes.
    ///
    /// Extensible: any SQLSTATE can be written as `Code(rawValue: "42P07")`; the statics name the
    /// ones FieldSync reacts to. See the PostgreSQL manual's "Appendix A. Error Codes".
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        // MARK: - Server SQLSTATEs
        public static let uniqueViolation = Code(rawValue: "23505")
        public static let foreignKeyViolation = Code(rawValue: "23503")
        public static let notNullViolation = Code(rawValue: "23502")
        public static let checkViolation = Code(rawValue: "23514")
        public static let serializationFailure = Code(rawValue: "40001")
        public static let deadlockDetected = Code(rawValue: "40P01")
        public static let lockNotAvailable = Code(rawValue: "55P03")
        public static let undefinedTable = Code(rawValue: "42P01")
        public static let undefinedColumn = Code(rawValue: "42703")
        public static let syntaxError = Code(rawValue: "42601")
        public static let duplicateDatabase = Code(rawValue: "42P04")
        public static let invalidTextRepresentation = Code(rawValue: "22P02")
        public static let inFailedTransaction = Code(rawValue: "25P02")
        public static let queryCanceled = Code(rawValue: "57014")
        public static let adminShutdown = Code(rawValue: "57P01")
        public static let featureNotSupported = Code(rawValue: "0A000")

        // MARK: - Client-side codes
        /// The server could not be reached, or the connection broke.
        public static let connectionFailed = Code(rawValue: "connection_failed")
        /// No pooled connection became free within `PostgresClient.Options.acquireTimeout`.
        public static let poolTimeout = Code(rawValue: "pool_timeout")
        /// The pool was shut down.
        public static let poolClosed = Code(rawValue: "pool_closed")
        /// A result value could not be decoded as the requested Swift type.
        public static let decoding = Code(rawValue: "decoding")
        /// A bind value cannot be sent (PostgreSQL text cannot hold a NUL character).
        public static let encoding = Code(rawValue: "encoding")
        /// A configuration or database URL is malformed.
        public static let invalidConfiguration = Code(rawValue: "invalid_configuration")
        /// The migrations directory is inconsistent (bad file name, gap, duplicate number).
        public static let invalidMigration = Code(rawValue: "invalid_migration")
        /// The embedded cluster could not be located, initialised or started.
        public static let clusterUnavailable = Code(rawValue: "cluster_unavailable")
        /// libpq failed without a server error (for example out of memory, or a protocol error).
        public static let client = Code(rawValue: "client_error")

        /// Whether retrying the whole transaction may succeed (serialization failure or deadlock).
        public var isTransient: Bool { self == .serializationFailure || self == .deadlockDetected }
    }
}
