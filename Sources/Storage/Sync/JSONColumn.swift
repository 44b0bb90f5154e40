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

    /// Writes field metadata in canonical form (keys sorted) without a `JSONValue` tree per field:
    /// every record a push touches carries one entry per field. Where a field's `seq` goes, `seq`
    /// is called with the field's name instead, so a template can leave the number out.
    static func write(_ fieldMeta: [String: FieldMeta], into bytes: inout [UInt8], seq: (String, inout [UInt8]) -> Void) {
        bytes.append(UInt8(ascii: "{"))
        for (index, name) in fieldMeta.keys.sorted().enumerated() {
            let meta = fieldMeta[name]!
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            JSONValue.string(name).writeCanonical(into: &bytes)
            bytes.append(contentsOf: ":{".utf8)
            // Canonical member order: deviceId, opId, seq.
            if let deviceId = meta.deviceId { member("deviceId", .string(deviceId), into: &bytes) }
            if let opId = meta.opId { member("opId", .string(opId), into: &bytes) }
            bytes.append(contentsOf: #""seq":"#.utf8)
            seq(name, &bytes)
            bytes.append(UInt8(ascii: "}"))
        }
        bytes.append(UInt8(ascii: "}"))
    }

    /// `"name":value,`
    private static func member(_ name: StaticString, _ value: JSONValue, into bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        bytes.append(contentsOf: "\":".utf8)
        value.writeCanonical(into: &bytes)
        bytes.append(UInt8(ascii: ","))
    }

    static func encode(_ result: OpResult) -> String {
        text(reserving: 128, result.writeCanonical)
    }

    static func encode(_ op: PushOp) -> String {
        text(reserving: 256, op.writeCanonical)
    }

    /// The text `write` writes, into a buffer reserved for about `capacity` bytes.
    private static func text(reserving capacity: Int, _ write: (inout [UInt8]) -> Void) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(capacity)
        write(&bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    static func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        try JSONDecoder().decode(type, from: Data(text.utf8))
    }

    /// A record's payload; read with JSONValue's own parser (every push reads the records it
    /// touches), and with `JSONDecoder` only for text that parser leaves to it.
    static func decodePayload(_ text: String) throws -> [String: JSONValue] {
        if case .object(let payload)? = JSONValue(parsing: text) { return payload }
        return try decode([String: JSONValue].self, text)
    }

    /// An op's stored result, read like ``decodePayload(_:)``: a replayed push reads one per op.
    static func decodeResult(_ text: String) throws -> OpResult {
        try JSONValue(parsing: text).flatMap(OpResult.init(json:)) ?? decode(OpResult.self, text)
    }

    /// A record's field metadata, read like ``decodePayload(_:)``.
    static func decodeFieldMeta(_ text: String) throws -> [String: FieldMeta] {
        if case .object(let members)? = JSONValue(parsing: text) {
            let metas = members.compactMapValues(FieldMeta.init(json:))
            if metas.count == members.count { return metas }
        }
        return try decode([String: FieldMeta].self, text)
    }
}
