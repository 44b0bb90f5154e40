/// One result row, copied out of SQLite: column names and values, readable by name.
///
/// ```swift
/// for row in try db.rows("SELECT op_id, client_seq FROM outbox") {
///     let opId = try row.decode("op_id", as: String.self)
///     let seq: Int64? = try row.decode("client_seq")
/// }
/// ```
public struct Row: Hashable, Sendable {
    public let columnNames: [String]
    public let values: [DatabaseValue]

    public init(columnNames: [String], values: [DatabaseValue]) {
        self.columnNames = columnNames
        self.values = values
    }

    init(_ statement: Statement) {
        columnNames = (0..<statement.columnCount).map(statement.columnName(at:))
        values = (0..<statement.columnCount).map(statement.value(at:))
    }

    /// The value of the first column named `column`; `.null` when there is none.
    public subscript(_ column: String) -> DatabaseValue {
        columnNames.firstIndex(of: column).map { values[$0] } ?? .null
    }

    /// The column converted to `T` (an `Optional` type accepts NULL).
    /// - Throws: `SQLiteError` (`mismatch`) when the column is missing or does not convert.
    public func decode<T: DatabaseValueConvertible>(_ column: String, as type: T.Type = T.self) throws -> T {
        guard columnNames.contains(column) else {
            throw SQLiteError(code: .mismatch, message: "no column \(column) in the row")
        }
        guard let value = T(databaseValue: self[column]) else {
            throw SQLiteError(code: .mismatch, message: "column \(column) does not hold a \(T.self)")
        }
        return value
    }
}
