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

extension OpResult {
    /// A result as the op log stores it (its ``jsonValue`` form): a replayed push reads back one
    /// per op.
    public init?(json: JSONValue) {
        guard case .object(let members) = json, let opId = members["opId"]?.stringValue,
            let status = members["status"]?.stringValue.flatMap(OpStatus.init(rawValue:)),
            let code = optional(members["code"], { $0.stringValue.map(ErrorCode.init(rawValue:)) }),
            let message = optional(members["message"], \.stringValue), let serverSeq = optional(members["serverSeq"], \.exactInt),
            let recordId = optional(members["recordId"], \.stringValue), let replayed = optional(members["replayed"], \.boolValue),
            let conflicts = optional(members["conflicts"], { array($0, FieldConflict.init(json:)) }),
            let appliedFields = optional(members["appliedFields"], strings),
            let conflictId = optional(members["conflictId"], \.stringValue), let missing = optional(members["missing"], Missing.init(json:)),
            let tombstoneSeq = optional(members["tombstoneSeq"], \.exactInt),
            let details = optional(members["details"], { if case .object(let details) = $0 { details } else { nil } })
        else { return nil }
        self.init(
            opId: opId, status: status, code: code, message: message, serverSeq: serverSeq, recordId: recordId, replayed: replayed,
            conflicts: conflicts, appliedFields: appliedFields, conflictId: conflictId, missing: missing, tombstoneSeq: tombstoneSeq,
            details: details)
    }
}

extension OpResult.Missing {
    /// As its `Codable` conformance reads it: whole numbers when there are any, else strings.
    init?(json: JSONValue) {
        if let seqs = array(json, \.exactInt), !seqs.isEmpty {
            self = .clientSeqs(seqs)
        } else if let ids = strings(json) {
            self = .attachments(ids)
        } else {
            return nil
        }
    }
}

extension FieldConflict {
    init?(json: JSONValue) {
        guard case .object(let members) = json, let field = members["field"]?.stringValue, let clientNew = members["clientNew"],
            let serverSeq = members["serverSeq"]?.exactInt,
            let winner = optional(members["winner"], { $0.stringValue.flatMap(ConflictWinner.init(rawValue:)) })
        else { return nil }
        self.init(
            field: field, clientOld: members["clientOld"], clientNew: clientNew, serverCurrent: members["serverCurrent"],
            serverSeq: serverSeq, winner: winner)
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

/// An array each of whose elements `read` accepts.
private func array<T>(_ json: JSONValue, _ read: (JSONValue) -> T?) -> [T]? {
    guard case .array(let elements) = json else { return nil }
    var values: [T] = []
    values.reserveCapacity(elements.count)
    for element in elements {
        guard let value = read(element) else { return nil }
        values.append(value)
    }
    return values
}

private func strings(_ json: JSONValue) -> [String]? {
    array(json, \.stringValue)
}
