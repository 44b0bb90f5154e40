import Foundation
import SyncProtocol

/// The canonical bytes of an op that its idempotency fingerprint is computed from (rule 1).
///
/// Covers every member of the op as the device sent it, normalized so that spellings with the
/// same meaning agree: `entityKey` defaults to `recordId`, `dependsOn` is sorted and
/// de-duplicated (empty = absent), empty `fields` = absent, `old: null` = no `old`. The batch's
/// `schemaVersion` is not part of an op and is not covered. Keys are sorted, numbers printed
/// the way `JSONEncoder` prints them.
enum OpFingerprint {
    static func canonicalData(of op: PushOp) -> Data {
        var normalized = op
        normalized.entityKey = op.effectiveEntityKey
        let dependsOn = Set(op.dependsOn ?? []).sorted()
        normalized.dependsOn = dependsOn.isEmpty ? nil : dependsOn
        normalized.fields = op.fields?.isEmpty == false ? op.fields : nil
        // PushOp holds only strings, numbers and JSON values: encoding it cannot fail.
        return ((try? JSONValue(encoding: normalized)) ?? .null).canonicalData()
    }
}
