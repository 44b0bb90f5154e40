/// The values bound to a statement's `?` parameters, in order.
///
/// ```swift
/// try db.execute("UPDATE device SET cursor = ? WHERE id = ?", [cursor, 1])
/// try db.execute("INSERT INTO t VALUES (?, ?)", StatementArguments([name, nil]))
/// ```
public struct StatementArguments: Hashable, Sendable, ExpressibleByArrayLiteral {
    public var values: [DatabaseValue]

    public init(_ values: [(any DatabaseValueConvertible)?]) {
        self.values = values.map { $0?.databaseValue ?? .null }
    }

    public init(arrayLiteral elements: (any DatabaseValueConvertible)?...) {
        self.init(elements)
    }
}
