import Postgres
import SyncEngine
import SyncProtocol

/// The `field_meta` array bind of some records, encoded before their sequence numbers are final.
///
/// A push's records carry stand-in numbers until its numbers are reserved, once every read is
/// done; so everything but the numbers is written ahead, and ``filled(with:)`` only writes the
/// final numbers in. Each field's number comes from the same record and field
/// of the final rows, which must be the drafted rows renumbered.
struct FieldMetaColumn {
    /// Bytes of the array literal (escaped already) before each number, and after the last one.
    private var segments: [[UInt8]] = []
    /// Where each number comes from: the record's position and the field's name.
    private var slots: [(record: Int, field: String)] = []

    init(_ records: [StoredRecord]) {
        var literal: [UInt8] = [UInt8(ascii: "{")]
        for (index, record) in records.enumerated() {
            literal.append(contentsOf: (index > 0 ? ",\"" : "\"").utf8)
            var json: [UInt8] = []
            var holes: [(offset: Int, field: String)] = []
            JSONColumn.write(record.fieldMeta, into: &json) { field, bytes in holes.append((bytes.count, field)) }
            var start = 0
            for hole in holes {
                Self.appendEscaped(json[start..<hole.offset], to: &literal)
                segments.append(literal)
                slots.append((index, hole.field))
                literal = []
                start = hole.offset
            }
            Self.appendEscaped(json[start...], to: &literal)
            literal.append(UInt8(ascii: "\""))
        }
        literal.append(UInt8(ascii: "}"))
        segments.append(literal)
    }

    /// The bind with the numbers of `records`; nil when a drafted field is missing from them.
    func filled(with records: [StoredRecord]) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(segments.reduce(slots.count * 8) { $0 + $1.count })
        for (segment, slot) in zip(segments, slots) {
            guard slot.record < records.count, let meta = records[slot.record].fieldMeta[slot.field] else { return nil }
            bytes.append(contentsOf: segment)
            bytes.append(contentsOf: String(meta.seq).utf8)
        }
        bytes.append(contentsOf: segments[segments.count - 1])
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func appendEscaped(_ json: ArraySlice<UInt8>, to literal: inout [UInt8]) {
        json.withUnsafeBufferPointer { ArrayLiteral.appendEscaped($0, to: &literal) }
    }
}
