/// Integers travel as their decimal text; `int2`, `int4`, `int8` and `numeric` columns without a
/// fraction decode into any width that holds the value.
extension PostgresEncodable where Self: FixedWidthInteger {
    @inlinable
    public var postgresText: String? { String(self) }
}

extension PostgresDecodable where Self: FixedWidthInteger {
    public init(postgresText: String) throws {
        guard let value = Self(postgresText, radix: 10) else { throw PostgresError.decoding(postgresText, as: Self.self) }
        self = value
    }
}

extension Int: PostgresEncodable, PostgresDecodable {}
extension Int16: PostgresEncodable, PostgresDecodable {}
extension Int32: PostgresEncodable, PostgresDecodable {}
extension Int64: PostgresEncodable, PostgresDecodable {}
