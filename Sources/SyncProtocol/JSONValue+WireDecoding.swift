public import Foundation

/// Hand-written readers of the wire types read most often, the counterparts of the
/// `jsonValue` forms: a push body is read on every push, and every record it touches is read
/// back from the database. Each answers nil unless the JSON is a well-formed value of its type,
/// so callers fall back to `JSONDecoder`, which reports what is wrong; where they answer, the
/// value is the one the `Codable` conformance decodes (the wire-format tests check both agree).
extension PushRequest {
    /// The request in a push body, read with ``JSONValue/init(parsing:)-(Data)``; nil means
    /// "decode it with `JSONDecoder`", never "invalid".
    public init?(quickly body: Data) {
        guard let json = JSONValue(parsing: body), let request = PushRequest(json: json) else { return nil }
        self = request
    }

    init?(json: JSONValue) {
        guard case .object(let members) = json, let deviceId = members["deviceId"]?.stringValue,
            let schemaVersion = members["schemaVersion"]?.exactInt.flatMap({ Int(exactly: $0) }),
            let range = optional(members["clientSeqRange"], ClientSeqRange.init(json:)),
            case .array(let ops)? = members["ops"]
        else { return nil }
        var decoded: [PushOp] = []
        decoded.reserveCapacity(ops.count)
        for op in ops {
            guard let op = PushOp(json: op) else { return nil }
            decoded.append(op)
        }
        self.init(deviceId: deviceId, schemaVersion: schemaVersion, clientSeqRange: range, ops: decoded)
    }
}

extension ClientSeqRange {
    init?(json: JSONValue) {
        guard let from = json["from"]?.exactInt, let to = json["to"]?.exactInt else { return nil }
        self.init(from: from, to: to)
    }
}

extension PushOp {
    init?(json: JSONValue) {
        guard case .object(let members) = json, let opId = members["opId"]?.stringValue,
            let clientSeq = members["clientSeq"]?.exactInt, let collection = members["collection"]?.stringValue,
            let recordId = members["recordId"]?.stringValue, let type = members["type"]?.stringValue.flatMap(OpType.init(rawValue:)),
            let occurredAt = members["occurredAt"]?.stringValue, let entityKey = optional(members["entityKey"], \.stringValue),
            let baseServerSeq = optional(members["baseServerSeq"], \.exactInt), let fields = optional(members["fields"], Self.fields),
            let dependsOn = optional(members["dependsOn"], strings), let resolves = optional(members["resolves"], \.stringValue)
        else { return nil }
        self.init(
            opId: opId, clientSeq: clientSeq, collection: collection, recordId: recordId, type: type, entityKey: entityKey,
            baseServerSeq: baseServerSeq, occurredAt: occurredAt, fields: fields, dependsOn: dependsOn, resolves: resolves)
    }

    private static func fields(_ json: JSONValue) -> [String: FieldChange]? {
        guard case .object(let members) = json else { return nil }
        var fields: [String: FieldChange] = [:]
        for (name, change) in members {
            // `new` may be null but must be there; `old` may be missing.
            guard case .object(let sides) = change, let new = sides["new"] else { return nil }
            fields[name] = FieldChange(old: sides["old"], new: new)
        }
        return fields
    }
}

extension FieldMeta {
    /// The metadata of one field as stored in a record's `fieldMeta` object.
    public init?(json: JSONValue) {
        guard let seq = json["seq"]?.exactInt, let opId = optional(json["opId"], \.stringValue),
            let deviceId = optional(json["deviceId"], \.stringValue)
        else { return nil }
        self.init(seq: seq, opId: opId, deviceId: deviceId)
    }
}

extension JSONValue {
    /// The integer, only when this is an ``int(_:)`` (what an `Int64` property decodes from).
    fileprivate var exactInt: Int64? {
        if case .int(let value) = self { value } else { nil }
    }
}

/// An optional property: `.some(nil)` when absent or null (as `decodeIfPresent` reads it),
/// `read`'s value when that accepts it, and nil (not decodable here) otherwise.
private func optional<T>(_ value: JSONValue?, _ read: (JSONValue) -> T?) -> T?? {
    guard let value else { return .some(nil) }
    if case .null = value { return .some(nil) }
    return read(value).map { .some($0) }
}

private func strings(_ json: JSONValue) -> [String]? {
    guard case .array(let elements) = json else { return nil }
    var strings: [String] = []
    strings.reserveCapacity(elements.count)
    for element in elements {
        guard case .string(let string) = element else { return nil }
        strings.append(string)
    }
    return strings
}
