public import Foundation

/// UUIDs travel in their canonical hyphenated form; PostgreSQL prints them lowercase.
extension UUID: PostgresEncodable, PostgresDecodable {
    public var postgresText: String? { uuidString.lowercased() }

    public init(postgresText: String) throws {
        guard let value = UUID(uuidString: postgresText) else { throw PostgresError.decoding(postgresText, as: UUID.self) }
        self = value
    }
}
