import Foundation
import SyncProtocol

/// Encodes and decodes the `jsonb` columns of the sync tables (text format on the wire).
enum JSONColumn {
    static func encode(_ value: some Encodable) throws -> String {
        String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
    }

    /// Payloads go through `JSONValue`'s own writer: much cheaper than `JSONEncoder` on the
    /// push hot path, and the stored text is canonical.
    static func encode(_ payload: [String: JSONValue]) -> String {
        String(decoding: JSONValue.object(payload).canonicalData(), as: UTF8.self)
    }

    static func encode(_ fieldMeta: [String: FieldMeta]) -> String {
        encode(fieldMeta.mapValues { meta -> JSONValue in
            var members: [String: JSONValue] = ["seq": .int(meta.seq)]
            if let opId = meta.opId { members["opId"] = .string(opId) }
            if let deviceId = meta.deviceId { members["deviceId"] = .string(deviceId) }
            return .object(members)
        })
    }

    static func encode(_ result: OpResult) -> String {
        String(decoding: result.jsonValue.canonicalData(), as: UTF8.self)
    }

    static func encode(_ op: PushOp) -> String {
        String(decoding: op.jsonValue.canonicalData(), as: UTF8.self)
    }

    static func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        try JSONDecoder().decode(type, from: Data(text.utf8))
    }
}
