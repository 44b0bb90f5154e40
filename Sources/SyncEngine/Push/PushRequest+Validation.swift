public import SyncProtocol

extension PushRequest {
    /// The whole-request checks of a push: `VALIDATION_FAILED` naming the offending member in
    /// `details.field` (`ops`, `deviceId`, `ops[3].opId`, …); nothing is applied when they fail.
    ///
    /// Checks: at most `maxOpsPerPush` ops; well-formed device, op, record, entity and
    /// attachment ids; `clientSeq` in 1...2^53; no op id or `clientSeq` twice in the request; no
    /// U+0000 in any text of an op (see ``StorableText``).
    ///
    /// - Throws: ``SyncError`` with code `VALIDATION_FAILED`.
    public func validate(_ configuration: SyncConfiguration) throws(SyncError) {
        guard ops.count <= configuration.maxOpsPerPush else {
            throw .validation("ops", "at most \(configuration.maxOpsPerPush) ops per push")
        }
        guard DeviceIdentifier.isValid(deviceId) else { throw .validation("deviceId", "malformed deviceId") }
        var opIds: Set<String> = []
        var seqs: Set<Int64> = []
        for (index, op) in ops.enumerated() {
            let path = "ops[\(index)]"
            let ids =
                [("opId", op.opId), ("recordId", op.recordId), ("entityKey", op.effectiveEntityKey)]
                + (op.dependsOn ?? []).map { ("dependsOn", $0) }
            if let (name, _) = ids.first(where: { !DeviceIdentifier.isValid($0.1) }) {
                throw .validation("\(path).\(name)", "\(name) must be 1-128 characters of [A-Za-z0-9._:-]")
            }
            guard (1...SyncConfiguration.maxClientSeq).contains(op.clientSeq) else {
                throw .validation("\(path).clientSeq", "clientSeq must be between 1 and 2^53")
            }
            guard opIds.insert(op.opId).inserted else { throw .validation("\(path).opId", "opId appears twice") }
            guard seqs.insert(op.clientSeq).inserted else { throw .validation("\(path).clientSeq", "clientSeq appears twice") }
            if let member = StorableText.firstUnstorable(in: op) {
                throw .validation("\(path).\(member)", "text may not contain the character U+0000")
            }
        }
    }
}

extension StorableText {
    /// The op member holding U+0000 (`collection`, `occurredAt`, `resolves`, `fields.<name>`), if any.
    /// Ids need no check: their character set excludes it.
    static func firstUnstorable(in op: PushOp) -> String? {
        if !isStorable(op.collection) { return "collection" }
        if !isStorable(op.occurredAt) { return "occurredAt" }
        if let resolves = op.resolves, !isStorable(resolves) { return "resolves" }
        for (name, change) in (op.fields ?? [:]).sorted(by: { $0.key < $1.key }) {
            guard isStorable(name) else { return "fields" }
            if !isStorable(change.new) || !(change.old.map(isStorable) ?? true) { return "fields.\(name)" }
        }
        return nil
    }
}
