import SyncProtocol

extension PushService {
    /// Runs the one op `make` builds from the locked record and a server-allocated `clientSeq`
    /// through the push processor, or answers the stored result when `opId` is already in the
    /// device's op log: how the server pushes for callers that do not number their own ops (the
    /// simple report contract, the back-office's assignment forms).
    ///
    /// **clientSeq.** The device row is locked first (the same lock a push takes, held to
    /// commit), and the op gets the number just above the device's high-water mark. Every number
    /// up to that mark has arrived, so the op is never held behind a gap (rule 2), even when a
    /// push left ops waiting above one that never fills: those keep waiting, this op goes
    /// through. A retried op already in the op log is answered from the log without a new
    /// number, since a new number would change the op's fingerprint. A device must therefore
    /// use either this path or `/v1/sync/push` with its own numbering, not both.
    ///
    /// ```swift
    /// let result = try pushes.store.transaction { tx in
    ///     try pushes.runServerNumbered(opId: opId, key: key, schemaVersion: 3, by: dispatcher, in: tx) { current, clientSeq in op }
    /// }
    /// ```
    func runServerNumbered(
        opId: String, key: RecordKey, schemaVersion: Int, by principal: Principal, in tx: any SyncTransaction,
        make: (StoredRecord?, Int64) throws -> PushOp
    ) throws -> OpResult {
        let (device, stored, _) = try tx.lockDevice(principal.deviceId, readingOps: [opId])
        if let stored = stored.first { return stored.result }
        let current = try tx.lockRecords([key]).first
        guard device.highWater < SyncConfiguration.maxClientSeq else {
            throw SyncError.validation("deviceId", "this device has used every clientSeq; it cannot send more ops")
        }
        let op = try make(current, device.highWater + 1)
        return try processor.process(PushBatch(principal: principal, schemaVersion: schemaVersion, ops: [op]), in: tx).results[0]
    }
}
