/// One result row, with its values copied out of libpq (so it is a plain `Sendable` value).
///
/// ```swift
/// for row in try connection.query("SELECT id, name, archived_at FROM devices") {
///     let (id, name, archivedAt) = try row.decode((UUID, String, Date?).self)
///     let sameName = try row.decode("name", as: String.self)
/// }
/// ```
public struct PostgresRow: Sendable {
    /// Column names shared by every row of one result.
    final class Columns: Sendable {
        let names: [String]
        let indexes: [String: Int]

        init(names: [String]) {
            self.names = names
            // The first column wins when a name repeats, as in `SELECT a.id, b.id`.
            indexes = Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        }
    }

    let columns: Columns
    @usableFromInline let values: [String?]

    /// The result's column names, in order.
    public var columnNames: [String] { columns.names }

    /// Decodes the named column.
    /// - Throws: `PostgresError(.decoding)` when there is no such column, the value is NULL and `T`
    ///   is not optional, or the text is not a valid `T`.
    public func decode<T: PostgresDecodable>(_ column: String, as type: T.Type = T.self) throws -> T {
        guard let index = columns.indexes[column] else {
            throw PostgresError.decoding("the result has no column named \(column)")
        }
        return try decode(index, as: T.self)
    }

    /// Decodes the column at a zero-based position.
    /// - Throws: `PostgresError(.decoding)`, as for a named column.
    @inlinable
    public func decode<T: PostgresDecodable>(_ index: Int, as type: T.Type = T.self) throws -> T {
        // Inlined, so that a page of rows is decoded by code specialized for its column types
        // instead of looking up generic metadata for every value.
        guard values.indices.contains(index), let text = values[index] else { return try absentValue(at: index) }
        do {
            return try T(postgresText: text)
        } catch let error as PostgresError {
            throw naming(error, column: index)
        }
    }

    /// NULL as `T`, or the error for NULL or for a column index out of range.
    @usableFromInline
    func absentValue<T: PostgresDecodable>(at index: Int) throws -> T {
        guard values.indices.contains(index) else {
            throw PostgresError.decoding("column index \(index) is out of range (the result has \(values.count) columns)")
        }
        guard let null = T.postgresNull else {
            throw PostgresError.decoding("column \(columns.names[index]) is NULL; decode it as \(T?.self)")
        }
        return null
    }

    /// `error` with the name of the column whose text it was about.
    @usableFromInline
    func naming(_ error: PostgresError, column index: Int) -> PostgresError {
        var error = error
        error.message += " (column \(columns.names[index]))"
        return error
    }

    /// Decodes all columns, in order, into a tuple: `row.decode((Int, String?).self)`.
    /// - Throws: `PostgresError(.decoding)` when the column count differs from the tuple's arity or a
    ///   column does not decode.
    public func decode<each T: PostgresDecodable>(_ types: (repeat each T).Type) throws -> (repeat each T) {
        var index = 0
        func next<Value: PostgresDecodable>(_ type: Value.Type) throws -> Value {
            defer { index += 1 }
            return try decode(index, as: Value.self)
        }
        let decoded = (repeat try next((each T).self))
        guard index == values.count else {
            throw PostgresError.decoding("the row has \(values.count) columns but \(index) types were given")
        }
        return decoded
    }

    /// Whether the named column is NULL (also true when there is no such column).
    public func isNull(_ column: String) -> Bool {
        columns.indexes[column].map { values[$0] == nil } ?? true
    }
}
