/// Booleans travel as `true`/`false`; PostgreSQL prints `t`/`f`.
extension Bool: PostgresEncodable, PostgresDecodable {
    public var postgresText: String? { self ? "true" : "false" }

    public init(postgresText: String) throws {
        switch postgresText {
        case "t", "true": self = true
        case "f", "false": self = false
        default: throw PostgresError.decoding(postgresText, as: Bool.self)
        }
    }
}
