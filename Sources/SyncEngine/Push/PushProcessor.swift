public import Foundation
public import SyncProtocol

/// One push (or a re-run of deferred ops) inside one transaction: rules 1 to 8 of PROTOCOL.md.
///
/// The processor reads everything it needs in a fixed handful of calls, decides all ops in
/// memory, then reserves sequence numbers and hands the store one ``WriteSet``. It keeps no
/// state between calls: re-running it on a subset of the ops (rule 9 fallback, see
/// ``PushService``) is just another call.
///
/// ```swift
/// let processor = PushProcessor(schema: try .builtIn(), digest: { sha256Hex($0) })
/// let outcome = try store.transaction { tx in
///     try processor.process(PushBatch(principal: ana, schemaVersion: 3, ops: request.ops), in: tx)
/// }
/// ```
///
/// **Fingerprint.** An op's fingerprint is `digest(canonical JSON of the op)`, see
/// ``fingerprint(of:)``. The default digest is the canonical JSON text itself (exact, but as
/// long as the op); production passes SHA-256 hex.
public struct PushProcessor: Sendable {
    public let schema: Schema
    public private(set) var configuration: SyncConfiguration
    private let clock: @Sendable () -> Date
    private let makeId: @Sendable () -> String
    private let digest: @Sendable (Data) -> String

    /// - Parameters:
    ///   - clock: the server clock; the device clock never decides anything but the `occurredAt` window.
    ///   - makeId: new conflict entry ids.
    ///   - digest: turns an op's canonical bytes into its stored fingerprint.
    public init(
        schema: Schema, configuration: SyncConfiguration = SyncConfiguration(), clock: @escaping @Sendable () -> Date = { Date() },
        makeId: @escaping @Sendable () -> String = { UUID().uuidString.lowercased() },
        digest: @escaping @Sendable (Data) -> String = { String(decoding: $0, as: UTF8.self) }
    ) {
        self.schema = schema
        self.configuration = configuration
        self.clock = clock
        self.makeId = makeId
        self.digest = digest
    }

    /// This processor with other tunables, e.g. the limits an operator set in the settings.
    public func configured(_ configuration: SyncConfiguration) -> PushProcessor {
        var copy = self
        copy.configuration = configuration
        return copy
    }

    /// The idempotency fingerprint of an op: `digest` of its canonical JSON (see `OpFingerprint`).
    public func fingerprint(of op: PushOp) -> String {
        digest(OpFingerprint.canonicalData(of: op))
    }

    /// Runs one push of `batch.principal`'s device, together with the device's deferred ops.
    ///
    /// - Returns: one result per op of the batch in its order, plus the settled deferred ops.
    /// - Throws: only errors of the transaction; op failures are results.
    public func process(_ batch: PushBatch, in tx: any SyncTransaction) throws -> PushOutcome {
        let now = clock()
        let incoming = batch.ops.map { op in
            PendingOp(
                op: op, schemaVersion: batch.schemaVersion, author: batch.principal, receivedAt: now, fingerprint: fingerprint(of: op),
                result: OpResult(opId: op.opId, status: .deferred))
        }
        return try run(
            deviceId: batch.principal.deviceId, incoming: incoming, blocked: batch.blockedEntities, visit: batch.visit, now: now, in: tx)
    }

    /// Re-attempts a device's deferred ops, e.g. after an attachment they wait for was finalized.
    ///
    /// - Returns: the re-attempted ops' results in ``PushOutcome/settled``.
    public func releaseDeferred(deviceId: String, in tx: any SyncTransaction) throws -> PushOutcome {
        try run(deviceId: deviceId, incoming: [], blocked: [:], visit: nil, now: clock(), in: tx)
    }

    private func run(
        deviceId: String, incoming: [PendingOp], blocked: [String: String], visit: SyncVisit?, now: Date, in tx: any SyncTransaction
    ) throws -> PushOutcome {
        let (device, stored, latestSequence) = try tx.lockDevice(deviceId, readingOps: incoming.map(\.op.opId))
        try Self.checkWindow(incoming, highWater: device.highWater, stored: stored, window: configuration.clientSeqWindow)
        let intake = Intake(incoming: incoming, device: device, stored: stored, maxMissing: configuration.maxMissingListed)
        var run = try loadRun(for: intake.attempts, blocked: blocked, now: now, in: tx)
        var results: [String: OpResult] = [:]
        for pending in intake.attempts {
            results[pending.op.opId] = run.attempt(pending)
        }
        for (pending, missing) in intake.waiting {
            results[pending.op.opId] = OpResult(
                opId: pending.op.opId, status: .deferred, code: .awaitingPredecessor, message: "an earlier clientSeq has not arrived",
                recordId: pending.op.recordId, missing: .clientSeqs(missing))
        }
        try checkDeferredBound(before: device.pending.count, results: results)
        recordOpLog(intake: intake, results: results, into: &run.workspace)
        if intake.highWater != device.highWater {
            run.workspace.setHighWater(DeviceHighWater(deviceId: deviceId, highWater: intake.highWater))
        }
        if let visit { run.workspace.record(visit) }
        let numbered = try tx.number(run.workspace.draft, changes: run.workspace.changeCount)
        // A recorded visit always answers a newServerSeq, numbered or not.
        let newServerSeq = numbered.last ?? (visit != nil ? latestSequence : nil)
        return outcome(
            incoming: incoming, intake: intake, results: results.mapValues { $0.renumbered(numbered.map) }, newServerSeq: newServerSeq)
    }

    /// Refuses the whole push when an op not received before numbers itself more than `window`
    /// above the device's high-water mark (the transaction rolls back: nothing is applied).
    /// `clientSeq` is at most 2^53 and `highWater` at least 0, so the difference cannot overflow.
    private static func checkWindow(_ incoming: [PendingOp], highWater: Int64, stored: [OpLogEntry], window: Int64) throws(SyncError) {
        let known = Set(stored.map(\.opId))
        for (index, pending) in incoming.enumerated() where !known.contains(pending.op.opId) && pending.op.clientSeq - highWater > window {
            throw .validation(
                "ops[\(index)].clientSeq", "clientSeq may be at most \(window) above the highest one received in order (\(highWater))")
        }
    }

    /// Refuses the whole push (the transaction rolls back) when it would leave the device holding
    /// more deferred ops than the bound and more than it held before; a push that releases
    /// held ops, such as one filling a `clientSeq` gap, is never refused.
    private func checkDeferredBound(before: Int, results: [String: OpResult]) throws(SyncError) {
        let limit = configuration.maxDeferredOpsPerDevice
        let after = results.values.count { $0.status == .deferred }
        guard after > limit, after > before else { return }
        throw SyncError(
            .tooManyDeferred, "This device has \(after) ops waiting on the server, more than \(limit); upload their attachments first.",
            details: ["limit": .int(Int64(limit)), "deferred": .int(Int64(after))])
    }

    /// Loads the records, attachment states and conflict entries the attempts touch.
    private func loadRun(for attempts: [PendingOp], blocked: [String: String], now: Date, in tx: any SyncTransaction) throws -> BatchRun {
        // Lock order everywhere: device row, conflict entries, records (sorted).
        let conflictIds = Set(attempts.compactMap(\.op.resolves)).sorted()
        let conflicts = conflictIds.isEmpty ? [] : try tx.conflicts(ids: conflictIds)
        let keys = Set(attempts.map { RecordKey(collection: $0.op.collection, recordId: $0.op.recordId) }).sorted()
        let records = keys.isEmpty ? [] : try tx.lockRecords(keys)
        let attachmentIds = Set(attempts.flatMap { $0.op.dependsOn ?? [] }).sorted()
        let finalized = attachmentIds.isEmpty ? [] : try tx.finalizedAttachments(among: attachmentIds)
        return BatchRun(
            workspace: Workspace(schema: schema, now: now, makeId: makeId, records: records, conflicts: conflicts),
            validator: OpValidator(schema: schema, configuration: configuration), finalized: finalized,
            blocked: blocked.mapValues { BatchRun.Block.failed(opId: $0) })
    }

    /// Adds an op log row for every op first received now, and for held ops whose result changed.
    private func recordOpLog(intake: Intake, results: [String: OpResult], into workspace: inout Workspace) {
        for pending in intake.attempts + intake.waiting.map(\.op) {
            guard let result = results[pending.op.opId], intake.fresh.contains(pending.op.opId) || result != pending.result else { continue }
            var body = pending
            body.result = result
            let op = pending.op
            workspace.log(
                OpLogEntry(
                    deviceId: pending.author.deviceId, opId: op.opId, clientSeq: op.clientSeq, entityKey: op.effectiveEntityKey,
                    collection: op.collection, recordId: op.recordId, authorId: pending.author.userId, fingerprint: pending.fingerprint,
                    result: result, pending: result.status == .deferred ? body : nil, op: op))
        }
    }

    /// Answers the incoming ops in request order; results of held ops not in the request are `settled`.
    private func outcome(incoming: [PendingOp], intake: Intake, results: [String: OpResult], newServerSeq: Int64?) -> PushOutcome {
        let answers = zip(incoming, intake.answers).map { pending, answer in
            switch answer {
            case .stored(let entry):
                return entry.result.replaying()
            case .run(let opId, let replayed):
                // A stored deferred row the device state did not list would be a store inconsistency: retry.
                let result = results[opId] ?? OpResult(opId: opId, status: .retry, code: .temporarilyUnavailable)
                return replayed ? result.replaying() : result
            case .reused:
                return OpResult(
                    opId: pending.op.opId, status: .rejected, code: .idempotencyKeyReused,
                    message: "this opId was used for a different op", recordId: pending.op.recordId)
            case .regressed:
                return OpResult(
                    opId: pending.op.opId, status: .rejected, code: .clientSeqRegressed,
                    message: "clientSeq \(pending.op.clientSeq) was already received", recordId: pending.op.recordId)
            }
        }
        let requested = Set(incoming.map(\.op.opId))
        let settled = (intake.attempts + intake.waiting.map(\.op)).filter { !requested.contains($0.op.opId) }.compactMap { results[$0.op.opId] }
        return PushOutcome(results: answers, settled: settled, newServerSeq: newServerSeq)
    }
}

extension OpResult {
    /// This stored result as a replay answers it.
    func replaying() -> OpResult {
        var copy = self
        copy.replayed = true
        return copy
    }
}
