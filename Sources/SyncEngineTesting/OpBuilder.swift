public import SyncEngine
public import SyncProtocol

/// Builds ops with per-device `clientSeq` counters.
public struct OpBuilder: Sendable {
    let clock: TestClock
    private var seqs: [String: Int64] = [:]
    private var ids = 0

    public init(clock: TestClock) { self.clock = clock }

    public mutating func op(
        _ device: Principal, _ type: OpType, _ collection: String, _ recordId: String, _ fields: [String: JSONValue] = [:],
        base: Int64? = nil, old: [String: JSONValue] = [:], seq: Int64? = nil, opId: String? = nil, entityKey: String? = nil,
        dependsOn: [String]? = nil, resolves: String? = nil, occurredAt: String? = nil
    ) -> PushOp {
        let clientSeq = seq ?? (seqs[device.deviceId, default: 0] + 1)
        seqs[device.deviceId] = max(seqs[device.deviceId, default: 0], clientSeq)
        ids += 1
        return PushOp(
            opId: opId ?? "\(device.deviceId)-op-\(ids)", clientSeq: clientSeq, collection: collection, recordId: recordId, type: type,
            entityKey: entityKey, baseServerSeq: base, occurredAt: occurredAt ?? clock.stamp(-60),
            fields: type == .delete ? nil : fields.reduce(into: [:]) { $0[$1.key] = FieldChange(old: old[$1.key], new: $1.value) },
            dependsOn: dependsOn, resolves: resolves)
    }
}
