import Foundation
import SQLite
import SyncProtocol

/// JSON columns: ops, results and field maps are stored as the text the wire uses.
enum StoredJSON {
    static func text(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    static func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        try JSONDecoder().decode(type, from: Data(text.utf8))
    }

    /// A nullable JSON column of `row`, decoded.
    static func decode<T: Decodable>(_ type: T.Type, _ row: Row, _ column: String) throws -> T? {
        try row.decode(column, as: String?.self).map { try decode(type, $0) }
    }
}
