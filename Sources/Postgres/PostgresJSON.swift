public import Foundation

/// A `json`/`jsonb` value: UTF-8 JSON text, bound as text and cast by the server.
///
/// ```swift
/// let payload = try PostgresJSON(encoding: ["status": "open"])
/// try connection.execute("UPDATE records SET payload = \(payload) WHERE id = \(id)")
/// let row = try connection.query("SELECT payload FROM records WHERE id = \(id)")[0]
/// let fields = try row.decode("payload", as: PostgresJSON.self).decode([String: String].self)
/// ```
public struct PostgresJSON: Sendable, Hashable, PostgresEncodable, PostgresDecodable {
    /// The JSON document as UTF-8 bytes.
    public var data: Data

    /// Wraps an already-encoded JSON document.
    public init(data: Data) {
        self.data = data
    }

    /// Encodes a value with `JSONEncoder`.
    /// - Throws: whatever the encoder throws.
    public init<T: Encodable>(encoding value: T, encoder: JSONEncoder = JSONEncoder()) throws {
        data = try encoder.encode(value)
    }

    /// Decodes the document with `JSONDecoder`.
    /// - Throws: whatever the decoder throws.
    public func decode<T: Decodable>(_ type: T.Type = T.self, decoder: JSONDecoder = JSONDecoder()) throws -> T {
        try decoder.decode(T.self, from: data)
    }

    public var postgresText: String? { String(decoding: data, as: UTF8.self) }

    public init(postgresText: String) {
        data = Data(postgresText.utf8)
    }
}
