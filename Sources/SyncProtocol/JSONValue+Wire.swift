/// Hand-written `JSONValue` forms of the wire types written most often (every op of every
/// push is stored with its result): `JSONValue.canonicalData()` turns them into bytes far
/// faster than `JSONEncoder`. They produce exactly the JSON of the `Codable` conformances,
/// which the wire-format tests check.
extension OpResult {
    public var jsonValue: JSONValue {
        var members: [String: JSONValue] = ["opId": .string(opId), "status": .string(status.rawValue)]
        members["code"] = code.map { .string($0.rawValue) }
        members["message"] = message.map(JSONValue.string)
        members["serverSeq"] = serverSeq.map(JSONValue.int)
        members["recordId"] = recordId.map(JSONValue.string)
        members["replayed"] = replayed.map(JSONValue.bool)
        members["conflicts"] = conflicts.map { .array($0.map(\.jsonValue)) }
        members["appliedFields"] = appliedFields.map { .array($0.map(JSONValue.string)) }
        members["conflictId"] = conflictId.map(JSONValue.string)
        members["missing"] = missing.map(\.jsonValue)
        members["tombstoneSeq"] = tombstoneSeq.map(JSONValue.int)
        members["details"] = details.map(JSONValue.object)
        return .object(members)
    }
}

extension FieldConflict {
    public var jsonValue: JSONValue {
        var members: [String: JSONValue] = [
            "field": .string(field), "clientOld": clientOld ?? .null, "clientNew": clientNew,
            "serverCurrent": serverCurrent ?? .null, "serverSeq": .int(serverSeq),
        ]
        members["winner"] = winner.map { .string($0.rawValue) }
        return .object(members)
    }
}

extension PushOp {
    public var jsonValue: JSONValue {
        var members: [String: JSONValue] = [
            "opId": .string(opId), "clientSeq": .int(clientSeq), "collection": .string(collection), "recordId": .string(recordId),
            "type": .string(type.rawValue), "occurredAt": .string(occurredAt),
        ]
        members["entityKey"] = entityKey.map(JSONValue.string)
        members["baseServerSeq"] = baseServerSeq.map(JSONValue.int)
        members["fields"] = fields.map { fields in
            .object(fields.mapValues { .object(["old": $0.old ?? .null, "new": $0.new]) })
        }
        members["dependsOn"] = dependsOn.map { .array($0.map(JSONValue.string)) }
        members["resolves"] = resolves.map(JSONValue.string)
        return .object(members)
    }
}

extension OpResult {
    /// ``jsonValue``'s canonical bytes (``JSONValue/canonicalData()``), written member by member
    /// without building the tree: every pushed op's result is written twice, to the op log and
    /// to the answer.
    public func writeCanonical(into bytes: inout [UInt8]) {
        var object = CanonicalObject(into: &bytes)
        object.member("appliedFields", appliedFields.map { .array($0.map(JSONValue.string)) }, into: &bytes)
        object.member("code", code.map { .string($0.rawValue) }, into: &bytes)
        object.member("conflictId", conflictId.map(JSONValue.string), into: &bytes)
        object.member("conflicts", conflicts.map { .array($0.map(\.jsonValue)) }, into: &bytes)
        object.member("details", details.map(JSONValue.object), into: &bytes)
        object.member("message", message.map(JSONValue.string), into: &bytes)
        object.member("missing", missing.map(\.jsonValue), into: &bytes)
        object.member("opId", .string(opId), into: &bytes)
        object.member("recordId", recordId.map(JSONValue.string), into: &bytes)
        object.member("replayed", replayed.map(JSONValue.bool), into: &bytes)
        object.member("serverSeq", serverSeq.map(JSONValue.int), into: &bytes)
        object.member("status", .string(status.rawValue), into: &bytes)
        object.member("tombstoneSeq", tombstoneSeq.map(JSONValue.int), into: &bytes)
        object.close(into: &bytes)
    }
}

extension PushOp {
    /// ``jsonValue``'s canonical bytes, written member by member like
    /// ``OpResult/writeCanonical(into:)``: every pushed op's body goes to the op log.
    public func writeCanonical(into bytes: inout [UInt8]) {
        var object = CanonicalObject(into: &bytes)
        object.member("baseServerSeq", baseServerSeq.map(JSONValue.int), into: &bytes)
        object.member("clientSeq", .int(clientSeq), into: &bytes)
        object.member("collection", .string(collection), into: &bytes)
        object.member("dependsOn", dependsOn.map { .array($0.map(JSONValue.string)) }, into: &bytes)
        object.member("entityKey", entityKey.map(JSONValue.string), into: &bytes)
        if let fields {
            object.open("fields", into: &bytes)
            var changes = CanonicalObject(into: &bytes)
            for (name, change) in fields.sorted(by: { $0.key < $1.key }) {
                changes.open(name, into: &bytes)
                var members = CanonicalObject(into: &bytes)
                members.member("new", change.new, into: &bytes)
                members.member("old", change.old ?? .null, into: &bytes)
                members.close(into: &bytes)
            }
            changes.close(into: &bytes)
        }
        object.member("occurredAt", .string(occurredAt), into: &bytes)
        object.member("opId", .string(opId), into: &bytes)
        object.member("recordId", .string(recordId), into: &bytes)
        object.member("resolves", resolves.map(JSONValue.string), into: &bytes)
        object.member("type", .string(type.rawValue), into: &bytes)
        object.close(into: &bytes)
    }
}

extension OpResult.Missing {
    var jsonValue: JSONValue {
        switch self {
        case .attachments(let ids): .array(ids.map(JSONValue.string))
        case .clientSeqs(let seqs): .array(seqs.map(JSONValue.int))
        }
    }
}
