import SyncProtocol

/// Rewrites stored `fieldMeta` objects in the compact form, collecting the page's table of the
/// (opId, deviceId) pairs they name (PROTOCOL.md, Pull, compact field metadata).
///
/// A field set by no device's op (server-written, seeded) is `[seq]`; any other is
/// `[seq, index]`, `index` pointing into `fieldMetaOps`. Most records of a page were last
/// written by a handful of ops, so each pair is named once instead of once per field.
struct CompactFieldMeta {
    private struct Op: Hashable {
        var opId: String?
        var deviceId: String?
    }

    private var indexes: [Op: Int] = [:]
    private var ops: [Op] = []

    /// Appends `stored` (a record's `fieldMeta` text) in the compact form, fields by name.
    /// Text that is not stored field metadata is appended as it is: a field's entry may always
    /// come in the full form, and devices read both.
    mutating func write(_ stored: String, into bytes: inout [UInt8]) {
        guard case .object(let members)? = JSONValue(parsing: stored) else { return bytes.append(contentsOf: stored.utf8) }
        var metas: [(String, FieldMeta)] = []
        metas.reserveCapacity(members.count)
        for (name, value) in members {
            guard let meta = FieldMeta(json: value) else { return bytes.append(contentsOf: stored.utf8) }
            metas.append((name, meta))
        }
        bytes.append(UInt8(ascii: "{"))
        for (position, (name, meta)) in metas.sorted(by: { $0.0 < $1.0 }).enumerated() {
            if position > 0 { bytes.append(UInt8(ascii: ",")) }
            JSONValue.string(name).writeCanonical(into: &bytes)
            bytes.append(contentsOf: ":[\(meta.seq)".utf8)
            if meta.opId != nil || meta.deviceId != nil {
                bytes.append(contentsOf: ",\(index(of: Op(opId: meta.opId, deviceId: meta.deviceId)))".utf8)
            }
            bytes.append(UInt8(ascii: "]"))
        }
        bytes.append(UInt8(ascii: "}"))
    }

    /// The page's `fieldMetaOps` array: `[{"opId": …, "deviceId": …}, …]` in first-use order.
    func writeTable(into bytes: inout [UInt8]) {
        let table = JSONValue.array(
            ops.map { op in
                var members: [String: JSONValue] = [:]
                if let opId = op.opId { members["opId"] = .string(opId) }
                if let deviceId = op.deviceId { members["deviceId"] = .string(deviceId) }
                return .object(members)
            })
        table.writeCanonical(into: &bytes)
    }

    private mutating func index(of op: Op) -> Int {
        if let index = indexes[op] { return index }
        indexes[op] = ops.count
        ops.append(op)
        return ops.count - 1
    }
}
