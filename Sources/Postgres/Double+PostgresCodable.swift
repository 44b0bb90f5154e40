/// Doubles travel as Swift's shortest round-tripping decimal text. PostgreSQL 12+ prints `float8`
/// the same way (extra_float_digits defaults to 1), so values round-trip exactly, including
/// `Infinity`, `-Infinity` and `NaN`.
extension Double: PostgresEncodable, PostgresDecodable {
    public var postgresText: String? {
        if isNaN { return "NaN" }
        if isInfinite { return self < 0 ? "-Infinity" : "Infinity" }
        return description
    }

    public init(postgresText: String) throws {
        guard let value = Double(postgresText) else { throw PostgresError.decoding(postgresText, as: Double.self) }
        self = value
    }
}
