import Foundation
import SyncProtocol

/// The canonical bytes of an op that its idempotency fingerprint is computed from (rule 1).
///
/// Covers every member of the op as the device sent it, normalized so that spellings with the
/// same meaning agree: `entityKey` defaults to `recordId`, `dependsOn` is sorted and
/// de-duplicated (empty = absent), empty `fields` = absent, `old: null` = no `old`, `2.0` = `2`.
/// The batch's `schemaVersion` is not part of an op and is not covered. The bytes are the
/// canonical JSON (``JSONValue/canonicalData()``) of the op's PROTOCOL.md shape, built without
/// `Codable` because this runs for every pushed op.
enum OpFingerprint {
    static func canonicalData(of op: PushOp) -> Data {
        var members: [String: JSONValue] = [
            "opId": .string(op.opId), "clientSeq": .int(op.clientSeq), "collection": .string(op.collection),
            "recordId": .string(op.recordId), "type": .string(op.type.rawValue), "entityKey": .string(op.effectiveEntityKey),
            "occurredAt": .string(op.occurredAt),
        ]
        if let base = op.baseServerSeq { members["baseServerSeq"] = .int(base) }
        if let fields = op.fields, !fields.isEmpty {
            members["fields"] = .object(fields.mapValues { .object(["old": $0.old ?? .null, "new": $0.new]) })
        }
        let dependsOn = Set(op.dependsOn ?? []).sorted()
        if !dependsOn.isEmpty { members["dependsOn"] = .array(dependsOn.map(JSONValue.string)) }
        if let resolves = op.resolves { members["resolves"] = .string(resolves) }
        return JSONValue.object(members).canonicalData()
    }
}
