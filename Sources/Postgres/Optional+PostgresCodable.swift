/// `nil` is SQL NULL in both directions.
extension Optional: PostgresEncodable where Wrapped: PostgresEncodable {
    @inlinable
    public var postgresText: String? { self?.postgresText }
}

extension Optional: PostgresDecodable where Wrapped: PostgresDecodable {
    @inlinable
    public init(postgresText: String) throws {
        self = try Wrapped(postgresText: postgresText)
    }

    @inlinable
    public static var postgresNull: Self? { .some(nil) }
}
