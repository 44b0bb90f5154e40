public import Foundation

/// A value stored in or read from SQLite: one of its five storage classes.
///
/// ```swift
/// let value: DatabaseValue = "complete"
/// value.text        // "complete"
/// value.integer     // nil
/// ```
public enum DatabaseValue: Hashable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)

    public var integer: Int64? { if case .integer(let value) = self { value } else { nil } }
    public var real: Double? { if case .real(let value) = self { value } else { nil } }
    public var text: String? { if case .text(let value) = self { value } else { nil } }
    public var blob: Data? { if case .blob(let value) = self { value } else { nil } }
    public var isNull: Bool { self == .null }
}

extension DatabaseValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByNilLiteral, ExpressibleByFloatLiteral {
    public init(stringLiteral value: String) { self = .text(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(nilLiteral: ()) { self = .null }
    public init(floatLiteral value: Double) { self = .real(value) }
}

/// A Swift type that converts to and from a ``DatabaseValue``, for binds and ``Row`` reads.
///
/// ```swift
/// try db.execute("INSERT INTO outbox (client_seq, op_id) VALUES (?, ?)", [seq, opId])
/// let seq = try row.decode("client_seq", as: Int64.self)
/// ```
public protocol DatabaseValueConvertible {
    var databaseValue: DatabaseValue { get }
    /// The value, or nil when `databaseValue` is NULL or of another storage class.
    init?(databaseValue: DatabaseValue)
}

extension DatabaseValue: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { self }
    public init?(databaseValue: DatabaseValue) { self = databaseValue }
}

extension Int64: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(self) }
    public init?(databaseValue: DatabaseValue) {
        guard let value = databaseValue.integer else { return nil }
        self = value
    }
}

extension Int: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(Int64(self)) }
    public init?(databaseValue: DatabaseValue) {
        guard let value = databaseValue.integer.flatMap(Int.init(exactly:)) else { return nil }
        self = value
    }
}

extension Double: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .real(self) }
    /// Integers widen: SQLite stores an integral REAL value as an integer in some columns.
    public init?(databaseValue: DatabaseValue) {
        switch databaseValue {
        case .real(let value): self = value
        case .integer(let value): self = Double(value)
        default: return nil
        }
    }
}

extension Bool: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(self ? 1 : 0) }
    public init?(databaseValue: DatabaseValue) {
        guard let value = databaseValue.integer else { return nil }
        self = value != 0
    }
}

extension String: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .text(self) }
    public init?(databaseValue: DatabaseValue) {
        guard let value = databaseValue.text else { return nil }
        self = value
    }
}

extension Data: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .blob(self) }
    public init?(databaseValue: DatabaseValue) {
        guard let value = databaseValue.blob else { return nil }
        self = value
    }
}

extension Optional: DatabaseValueConvertible where Wrapped: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { self?.databaseValue ?? .null }
    /// `.some(nil)` for NULL, `.some(value)` for a convertible value, nil for a type mismatch.
    public init?(databaseValue: DatabaseValue) {
        if databaseValue.isNull {
            self = .none
        } else if let value = Wrapped(databaseValue: databaseValue) {
            self = .some(value)
        } else {
            return nil
        }
    }
}
