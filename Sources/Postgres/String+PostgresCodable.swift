/// Strings travel unchanged: text format needs no quoting because values are never spliced into SQL.
extension String: PostgresEncodable, PostgresDecodable {
    @inlinable
    public var postgresText: String? { self }

    @inlinable
    public init(postgresText: String) {
        self = postgresText
    }
}
