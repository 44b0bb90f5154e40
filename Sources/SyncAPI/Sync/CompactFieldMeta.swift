import SyncProtocol

/// Rewrites stored `fieldMeta` objects in the compact form, collecting the page's table of the
/// (opId, deviceId) pairs they name (PROTOCOL.md, Pull, compact field metadata).
///
/// A field set by no device's op (server-written, seeded) is `[seq]`; any other is
/// `[seq, index]`, `index` pointing into `fieldMetaOps`. Most records of a page were last
/// written by a handful of ops, so each pair is named once instead of once per field.
///
/// Stored metadata is read by ``StoredFieldMeta``, which copies names, numbers and ids as the
/// JSON text they are, without building values; text it does not expect goes through the
/// general JSON parser instead, with the same result.
struct CompactFieldMeta {
    /// An op as the JSON text of its `opId` and `deviceId` (a string token each, or nil).
    private struct Op: Hashable {
        var opId: [UInt8]?
        var deviceId: [UInt8]?

        /// Each token's bytes as one block: an array's own hashing feeds them one at a time.
        func hash(into hasher: inout Hasher) {
            func combine(_ token: [UInt8]?) {
                hasher.combine(token?.count ?? -1)
                token?.withUnsafeBytes { hasher.combine(bytes: $0) }
            }
            combine(opId)
            combine(deviceId)
        }
    }

    private var indexes: [Op: Int] = [:]
    private var ops: [Op] = []
    /// The fields of the record being written, kept to reuse its storage.
    private var fields: [StoredFieldMeta.Field] = []

    /// Appends `stored` (a record's `fieldMeta` text) in the compact form. Text that is not
    /// stored field metadata is appended as it is: a field's entry may always come in the full
    /// form, and devices read both.
    mutating func write(_ stored: String, into bytes: inout [UInt8]) {
        var stored = stored
        // Taken out while in use, so that it stays uniquely referenced and is not copied.
        var fields: [StoredFieldMeta.Field] = []
        swap(&fields, &self.fields)
        defer { self.fields = fields }
        let written = stored.withUTF8 { text in
            guard StoredFieldMeta.read(text, into: &fields) else { return false }
            bytes.append(UInt8(ascii: "{"))
            for (position, field) in fields.enumerated() {
                let op =
                    field.opId == nil && field.deviceId == nil
                    ? nil : index(opId: field.opId.map { text[$0] }, deviceId: field.deviceId.map { text[$0] })
                Self.appendEntry(name: text[field.name], seq: text[field.seq], op: op, first: position == 0, into: &bytes)
            }
            bytes.append(UInt8(ascii: "}"))
            return true
        }
        if !written { writeParsed(stored, into: &bytes) }
    }

    /// The page's `fieldMetaOps` array: `[{"deviceId": …, "opId": …}, …]` in first-use order.
    func writeTable(into bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "["))
        for (position, op) in ops.enumerated() {
            if position > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(UInt8(ascii: "{"))
            if let deviceId = op.deviceId {
                bytes.append(contentsOf: #""deviceId":"#.utf8)
                bytes.append(contentsOf: deviceId)
            }
            if let opId = op.opId {
                if op.deviceId != nil { bytes.append(UInt8(ascii: ",")) }
                bytes.append(contentsOf: #""opId":"#.utf8)
                bytes.append(contentsOf: opId)
            }
            bytes.append(UInt8(ascii: "}"))
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// The general path: `stored` parsed into values, fields by name.
    private mutating func writeParsed(_ stored: String, into bytes: inout [UInt8]) {
        guard case .object(let members)? = JSONValue(parsing: stored) else { return bytes.append(contentsOf: stored.utf8) }
        var metas: [(String, FieldMeta)] = []
        metas.reserveCapacity(members.count)
        for (name, value) in members {
            guard let meta = FieldMeta(json: value) else { return bytes.append(contentsOf: stored.utf8) }
            metas.append((name, meta))
        }
        bytes.append(UInt8(ascii: "{"))
        for (position, (name, meta)) in metas.sorted(by: { $0.0 < $1.0 }).enumerated() {
            let op =
                meta.opId == nil && meta.deviceId == nil
                ? nil : index(of: Op(opId: meta.opId.map(Self.token), deviceId: meta.deviceId.map(Self.token)))
            Self.appendEntry(name: Self.token(name), seq: String(meta.seq).utf8, op: op, first: position == 0, into: &bytes)
        }
        bytes.append(UInt8(ascii: "}"))
    }

    /// One field's compact entry, `"name":[seq]` or `"name":[seq,op]`, after a comma unless `first`.
    private static func appendEntry(
        name: some Sequence<UInt8>, seq: some Sequence<UInt8>, op: Int?, first: Bool, into bytes: inout [UInt8]
    ) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        bytes.append(contentsOf: name)
        bytes.append(contentsOf: ":[".utf8)
        bytes.append(contentsOf: seq)
        if let op {
            // Not interpolated: a small number's string needs no allocation, an interpolation does.
            bytes.append(UInt8(ascii: ","))
            bytes.append(contentsOf: String(op).utf8)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    private static func token(_ string: String) -> [UInt8] {
        var bytes: [UInt8] = []
        JSONValue.string(string).writeCanonical(into: &bytes)
        return bytes
    }

    /// The index of the op whose ids are these tokens of stored text.
    private mutating func index(opId: Slice<UnsafeBufferPointer<UInt8>>?, deviceId: Slice<UnsafeBufferPointer<UInt8>>?) -> Int {
        // Consecutive fields are mostly set by the same op: no copying or hashing for those.
        if let last = ops.last, Self.same(last.opId, opId), Self.same(last.deviceId, deviceId) { return ops.count - 1 }
        return index(of: Op(opId: opId.map(Array.init), deviceId: deviceId.map(Array.init)))
    }

    private static func same(_ token: [UInt8]?, _ text: Slice<UnsafeBufferPointer<UInt8>>?) -> Bool {
        switch (token, text) {
        case (nil, nil): true
        case (let token?, let text?): token.count == text.count && token.withUnsafeBufferPointer { $0.elementsEqual(text) }
        default: false
        }
    }

    private mutating func index(of op: Op) -> Int {
        if let index = indexes[op] { return index }
        indexes[op] = ops.count
        ops.append(op)
        return ops.count - 1
    }
}
