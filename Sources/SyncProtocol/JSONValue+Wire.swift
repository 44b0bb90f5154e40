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
        members["missing"] = missing.map { missing -> JSONValue in
            switch missing {
            case .attachments(let ids): .array(ids.map(JSONValue.string))
            case .clientSeqs(let seqs): .array(seqs.map(JSONValue.int))
            }
        }
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
