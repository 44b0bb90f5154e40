import CLibPQ

// MARK: - The funnel every libpq status goes through

extension PostgresError {
    /// Wraps a `PGresult` and throws unless its status says the command succeeded.
    ///
    /// - Parameters:
    ///   - raw: what `PQexec`, `PQprepare` or `PQexecPrepared` returned (NULL on out-of-memory or a lost connection).
    ///   - connection: the `PGconn` that produced it, for `PQerrorMessage` when there is no result.
    ///   - sql: the statement, kept for `debugDescription`.
    static func check(_ raw: OpaquePointer?, connection: OpaquePointer, sql: String) throws -> QueryResult {
        guard let raw else {
            throw PostgresError(connection: connection, sql: sql)
        }
        let result = QueryResult(raw)
        switch result.status {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return result
        default:
            throw PostgresError(result: result, connection: connection, sql: sql)
        }
    }

    /// Reads the server's error fields from a failed result.
    init(result: QueryResult, connection: OpaquePointer, sql: String?) {
        let state = result.errorField(.sqlState)
        self.init(
            code: state.map(Code.init(rawValue:)) ?? Self.clientCode(connection),
            message: result.errorField(.primaryMessage) ?? Self.trimmed(result.errorMessage),
            detail: result.errorField(.detail),
            hint: result.errorField(.hint),
            constraint: result.errorField(.constraintName),
            sql: sql
        )
    }

    /// Describes a failure libpq reported only on the connection (no result, or a failed connect).
    init(connection: OpaquePointer, sql: String?) {
        self.init(code: Self.clientCode(connection), message: Self.trimmed(String(cString: PQerrorMessage(connection))), sql: sql)
    }

    /// A lost connection is the usual reason for an error without a SQLSTATE.
    private static func clientCode(_ connection: OpaquePointer) -> Code {
        PQstatus(connection) == CONNECTION_OK ? .client : .connectionFailed
    }

    private static func trimmed(_ message: String) -> String {
        let text = message.trimmingSuffix { $0.isNewline || $0 == " " }
        return text.isEmpty ? "unknown libpq error" : text
    }
}

extension String {
    /// The string without the trailing characters that match.
    func trimmingSuffix(while predicate: (Character) -> Bool) -> String {
        var text = Substring(self)
        while let last = text.last, predicate(last) { text.removeLast() }
        return String(text)
    }
}
