public import Support
public import SyncProtocol

/// Pushes with rule 9: one transaction for the whole batch, and when that transaction fails,
/// each op again in its own transaction, so a database error in one op does not undo the others.
///
/// ```swift
/// let service = PushService(store: store, processor: processor, logger: logger)
/// let outcome = try service.push(request, by: principal)
/// ```
public struct PushService: Sendable {
    public let store: any SyncStore
    public let processor: PushProcessor
    private let logger: Logger

    public init(store: any SyncStore, processor: PushProcessor, logger: Logger) {
        self.store = store
        self.processor = processor
        self.logger = logger
    }

    /// Validates and runs one push.
    ///
    /// - Returns: one result per op, in request order. An op whose own transaction failed gets
    ///   `retry` / `TEMPORARILY_UNAVAILABLE` and nothing of it is stored.
    /// - Parameters:
    ///   - configuration: the limits in force for this push (the operator's settings); nil keeps
    ///     the processor's own.
    ///   - visit: the sync call to record in the push's transaction. The outcome's `newServerSeq`
    ///     is nil only when no transaction recorded it (every op failed in the rule 9 fallback).
    /// - Throws: ``SyncError`` (`VALIDATION_FAILED`) when the request itself is invalid, including
    ///   a new op's `clientSeq` beyond the window above the device's high-water mark.
    public func push(
        _ request: PushRequest, by principal: Principal, configuration: SyncConfiguration? = nil, visit: SyncVisit? = nil
    ) throws -> PushOutcome {
        let processor = configuration.map(processor.configured) ?? processor
        try request.validate(processor.configuration)
        guard request.deviceId == principal.deviceId else {
            throw SyncError.validation("deviceId", "deviceId does not match the authenticated device")
        }
        let batch = PushBatch(principal: principal, schemaVersion: request.schemaVersion, ops: request.ops, visit: visit)
        do {
            return try store.transaction { tx in try processor.process(batch, in: tx) }
        } catch let refusal as SyncError where refusal.code == .validationFailed || refusal.code == .tooManyDeferred {
            throw refusal
        } catch {
            logger.warning(
                "push transaction failed, applying its ops one at a time",
                metadata: ["device.id": principal.deviceId, "error": "\(error)"])
            return pushOneByOne(batch, processor: processor)
        }
    }

    /// Re-attempts a device's deferred ops in one transaction (after an attachment finalized).
    public func releaseDeferred(deviceId: String) throws -> PushOutcome {
        try store.transaction { tx in try processor.releaseDeferred(deviceId: deviceId, in: tx) }
    }

    /// The rule 9 fallback: each op in `clientSeq` order in its own transaction. The first one
    /// that commits records the batch's visit.
    private func pushOneByOne(_ batch: PushBatch, processor: PushProcessor) -> PushOutcome {
        var results: [String: OpResult] = [:]
        var blocked: [String: String] = [:]
        var settled: [OpResult] = []
        var newest: Int64?
        var visit = batch.visit
        for op in batch.ops.sorted(by: { $0.clientSeq < $1.clientSeq }) {
            let single = PushBatch(
                principal: batch.principal, schemaVersion: batch.schemaVersion, ops: [op], blockedEntities: blocked, visit: visit)
            do {
                let outcome = try store.transaction { tx in try processor.process(single, in: tx) }
                visit = nil
                let result = outcome.results[0]
                results[op.opId] = result
                if result.replayed != true, result.status == .conflict || result.status == .rejected, blocked[op.effectiveEntityKey] == nil {
                    blocked[op.effectiveEntityKey] = op.opId
                }
                settled += outcome.settled
                newest = [newest, outcome.newServerSeq].compactMap { $0 }.max()
            } catch {
                logger.error("op failed in its own transaction", metadata: ["op.id": op.opId, "error": "\(error)"])
                results[op.opId] = OpResult(
                    opId: op.opId, status: .retry, code: .temporarilyUnavailable, message: "temporary failure, retry later",
                    recordId: op.recordId)
            }
        }
        // A visit still pending was never recorded: say so with a nil newServerSeq.
        return PushOutcome(results: batch.ops.compactMap { results[$0.opId] }, settled: settled, newServerSeq: visit == nil ? newest : nil)
    }
}
