public import Foundation

/// Hand-written readers of the wire types read most often, the counterparts of the
/// `jsonValue` forms: a push body is read on every push, and every record it touches is read
/// back from the database. Each answers nil unless the JSON is a well-formed value of its type,
/// so callers fall back to `JSONDecoder`, which reports what is wrong; where they answer, the
/// value is the one the `Codable` conformance decodes (the wire-format tests check both agree).
extension PushRequest {
    /// The request in a push body, read with ``JSONValue/init(parsing:)-(Data)``; nil means
    /// "decode it with `JSONDecoder`", never "invalid".
    ///
    /// Read straight from the bytes: the request and its ops become no `JSONValue` objects (only
    /// member values do), which spares a dictionary per op. It answers exactly when
    /// `PushRequest(json: JSONValue(parsing: body))` would, with the same request.
    public init?(quickly body: Data) {
        guard let request = body.withUnsafeBytes({ JSONParser.whole($0.bindMemory(to: UInt8.self)) { $0.pushRequest() } }) else {
            return nil
        }
        self = request
    }

    init?(json: JSONValue) {
        guard case .object(let members) = json, case .array(let ops)? = members["ops"] else { return nil }
        var decoded: [PushOp] = []
        decoded.reserveCapacity(ops.count)
        for op in ops {
            guard let op = PushOp(json: op) else { return nil }
            decoded.append(op)
        }
        self.init(member: { members[$0] }, ops: decoded)
    }

    /// From the request's members other than `ops`, looked up by name, and its ops.
    fileprivate init?(member: (String) -> JSONValue?, ops: [PushOp]) {
        guard let deviceId = member("deviceId")?.stringValue,
            let schemaVersion = member("schemaVersion")?.exactInt.flatMap({ Int(exactly: $0) }),
            let range = optional(member("clientSeqRange"), ClientSeqRange.init(json:))
        else { return nil }
        self.init(deviceId: deviceId, schemaVersion: schemaVersion, clientSeqRange: range, ops: ops)
    }
}

extension JSONParser {
    /// A push request at `{`, read as ``PushRequest/init(json:)`` reads its tree.
    fileprivate mutating func pushRequest() -> PushRequest? {
        guard current == UInt8(ascii: "{") else { return nil }
        return nested { parser in
            var members = Members()
            var ops: [PushOp]?
            let complete = parser.eachMember { parser, key in
                guard key == "ops" else { return members.read(key, with: &parser) }
                guard members.claim(key), parser.current == UInt8(ascii: "[") else { return false }
                ops = parser.nested { $0.elements { $0.pushOp() } }
                return ops != nil
            }
            guard complete, let ops else { return nil }
            return PushRequest(member: members.lookup, ops: ops)
        }
    }

    /// An op at `{`, read as ``PushOp/init(json:)`` reads its tree.
    private mutating func pushOp() -> PushOp? {
        guard current == UInt8(ascii: "{") else { return nil }
        return nested { parser in
            var members = Members()
            guard parser.eachMember({ parser, key in members.read(key, with: &parser) }) else { return nil }
            return PushOp(member: members.lookup)
        }
    }
}

/// An object's members kept in order in an array instead of a dictionary: the few members of a
/// request or an op are found by comparing their short names, without hashing.
private struct Members {
    private var names: [String] = []
    private var values: [JSONValue] = []

    /// Takes `name` for a member read elsewhere; false when it came before (a repeated key,
    /// which ``JSONValue/init(parsing:)-(String)`` leaves to JSONDecoder).
    mutating func claim(_ name: String) -> Bool {
        guard !names.contains(name) else { return false }
        names.append(name)
        values.append(.null)
        return true
    }

    /// Reads the member `name`'s value; false when it does not parse or came before.
    mutating func read(_ name: String, with parser: inout JSONParser) -> Bool {
        guard let value = parser.value(), claim(name) else { return false }
        values[values.count - 1] = value
        return true
    }

    func lookup(_ name: String) -> JSONValue? {
        names.firstIndex(of: name).map { values[$0] }
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
        guard case .object(let members) = json else { return nil }
        self.init(member: { members[$0] })
    }

    /// From the op's members, looked up by name.
    fileprivate init?(member: (String) -> JSONValue?) {
        guard let opId = member("opId")?.stringValue, let clientSeq = member("clientSeq")?.exactInt,
            let collection = member("collection")?.stringValue, let recordId = member("recordId")?.stringValue,
            let type = member("type")?.stringValue.flatMap(OpType.init(rawValue:)), let occurredAt = member("occurredAt")?.stringValue,
            let entityKey = optional(member("entityKey"), \.stringValue), let baseServerSeq = optional(member("baseServerSeq"), \.exactInt),
            let fields = optional(member("fields"), Self.fields), let dependsOn = optional(member("dependsOn"), strings),
            let resolves = optional(member("resolves"), \.stringValue)
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
