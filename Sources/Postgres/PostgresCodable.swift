/// A Swift value that can be sent to PostgreSQL as a text-format parameter.
///
/// Conform a type by returning its PostgreSQL input syntax; `nil` means SQL NULL.
/// ```swift
/// extension Money: PostgresEncodable {
///     public var postgresText: String? { String(cents) }
/// }
/// ```
public protocol PostgresEncodable {
    /// The value in PostgreSQL's text input syntax, or nil for NULL.
    var postgresText: String? { get }
}

/// A Swift value that can be read from a text-format result column.
///
/// ```swift
/// extension Money: PostgresDecodable {
///     public init(postgresText: String) throws { cents = try Int(postgresText: postgresText) }
/// }
/// ```
public protocol PostgresDecodable {
    /// Parses PostgreSQL's text output for the type.
    /// - Throws: `PostgresError` with code `.decoding` when the text is not a valid value.
    init(postgresText: String) throws

    /// The value SQL NULL decodes to, or nil when NULL is not acceptable (the default).
    /// `Optional` returns `.some(nil)`.
    static var postgresNull: Self? { get }
}

extension PostgresDecodable {
    public static var postgresNull: Self? { nil }
}

/// A type that is both encodable and decodable.
public typealias PostgresCodable = PostgresEncodable & PostgresDecodable

extension PostgresError {
    /// The error for text that does not parse as `type`; the text itself is only in `detail`.
    static func decoding<T>(_ text: String, as type: T.Type) -> PostgresError {
        PostgresError(code: .decoding, message: "cannot decode a PostgreSQL value as \(T.self)", detail: "text: \(text)")
    }
}
