import CLibPQ

/// Owns one `PGresult` and frees it with `PQclear`; values are copied out into `PostgresRow`s.
final class QueryResult {
    private let handle: OpaquePointer

    init(_ handle: OpaquePointer) {
        self.handle = handle
    }

    deinit {
        PQclear(handle)
    }

    var status: ExecStatusType { PQresultStatus(handle) }

    /// The rows a command touched, from its command tag (`INSERT 0 3` → 3); 0 for commands without one.
    var affectedRows: Int {
        // > PQcmdTuples returns an empty string if the command did not affect rows; never NULL.
        Int(String(cString: PQcmdTuples(handle))) ?? 0
    }

    /// One of the error fields (`PG_DIAG_*`), when the server sent it.
    func errorField(_ field: DiagnosticField) -> String? {
        PQresultErrorField(handle, field.rawValue).map { String(cString: $0) }
    }

    /// The whole error message libpq composed for this result.
    var errorMessage: String {
        String(cString: PQresultErrorMessage(handle))
    }

    /// Copies every row out of the C result, so rows outlive it and can cross threads.
    func rows() -> [PostgresRow] {
        let rowCount = PQntuples(handle)
        let columnCount = PQnfields(handle)
        guard rowCount > 0 else { return [] }
        let columns = PostgresRow.Columns(names: (0..<columnCount).map { String(cString: PQfname(handle, $0)) })
        var rows: [PostgresRow] = []
        rows.reserveCapacity(Int(rowCount))
        for row in 0..<rowCount {
            let values = (0..<columnCount).map { column in copyValue(row: row, column: column) }
            rows.append(PostgresRow(columns: columns, values: values))
        }
        return rows
    }

    private func copyValue(row: Int32, column: Int32) -> String? {
        guard PQgetisnull(handle, row, column) == 0 else { return nil }
        // > PQgetvalue: the pointer points to storage that is part of the PGresult structure,
        // > … one must explicitly copy the data into other storage if it is to be used past the
        // > lifetime of the PGresult. Text values are NUL-terminated and PQgetlength gives their size.
        let bytes = UnsafeRawBufferPointer(start: PQgetvalue(handle, row, column), count: Int(PQgetlength(handle, row, column)))
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// The `PG_DIAG_*` codes of `PQresultErrorField` (one-letter codes in libpq's headers).
struct DiagnosticField: RawRepresentable {
    var rawValue: Int32

    private init(_ letter: Unicode.Scalar) { rawValue = Int32(letter.value) }
    init(rawValue: Int32) { self.rawValue = rawValue }

    static let sqlState = DiagnosticField("C")
    static let primaryMessage = DiagnosticField("M")
    static let detail = DiagnosticField("D")
    static let hint = DiagnosticField("H")
    static let constraintName = DiagnosticField("n")
}
