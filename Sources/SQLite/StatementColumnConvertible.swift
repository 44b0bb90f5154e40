public import Foundation

/// The fast path for reading a column: straight from the statement, without building a
/// ``DatabaseValue`` or a ``Row`` first (GRDB's `StatementColumnConvertible`).
///
/// ```swift
/// let seqs = try db.values(Int64.self, "SELECT client_seq FROM outbox ORDER BY client_seq")
/// ```
public protocol StatementColumnConvertible: DatabaseValueConvertible {
    /// Reads column `index` of the statement's current row, which is not NULL.
    init(statement: Statement, column index: Int)
}

extension Int64: StatementColumnConvertible {
    public init(statement: Statement, column index: Int) { self = statement.int64(at: index) }
}

extension Int: StatementColumnConvertible {
    public init(statement: Statement, column index: Int) { self = Int(truncatingIfNeeded: statement.int64(at: index)) }
}

extension Double: StatementColumnConvertible {
    public init(statement: Statement, column index: Int) { self = statement.double(at: index) }
}

extension Bool: StatementColumnConvertible {
    public init(statement: Statement, column index: Int) { self = statement.int64(at: index) != 0 }
}

extension String: StatementColumnConvertible {
    public init(statement: Statement, column index: Int) { self = statement.text(at: index) }
}

extension Data: StatementColumnConvertible {
    public init(statement: Statement, column index: Int) { self = statement.blob(at: index) }
}
