import Foundation
import SyncProtocol

/// The canonical bytes of an op that its idempotency fingerprint is computed from (rule 1).
///
/// Covers every member of the op as the device sent it, normalized so that spellings with the
/// same meaning agree: `entityKey` defaults to `recordId`, `dependsOn` is sorted and
/// de-duplicated (empty = absent), empty `fields` = absent, `old: null` = no `old`, `2.0` = `2`.
/// The batch's `schemaVersion` is not part of an op and is not covered. The bytes are the
/// canonical JSON (``JSONValue/canonicalData()``) of the op's PROTOCOL.md shape, written by
/// ``PushOp/writeCanonical(into:)`` from the normalized op because this runs for every pushed op.
enum OpFingerprint {
    static func canonicalData(of op: PushOp) -> Data {
        var normalized = op
        normalized.entityKey = op.effectiveEntityKey
        normalized.fields = op.fields?.isEmpty == false ? op.fields : nil
        let dependsOn = Set(op.dependsOn ?? []).sorted()
        normalized.dependsOn = dependsOn.isEmpty ? nil : dependsOn
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        normalized.writeCanonical(into: &bytes)
        return Data(bytes)
    }
}
