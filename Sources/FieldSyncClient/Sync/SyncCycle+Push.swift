import Foundation
import SyncProtocol

extension SyncCycle {
    /// Pushes every queued op, oldest first, in batches of at most `maxOpsPerPush` that share
    /// a schema version, and applies each batch's results before sending the next.
    ///
    /// A 413 halves the batch (an op alone always fits: the store caps op size); a 400 on
    /// `ops` means the limit changed, so it is fetched again. Deferred ops stay queued and
    /// are pushed again next time, which answers their current state.
    func pushOutbox(limits: ServerLimits) async throws(Stop) -> PushTally {
        var total = PushTally()
        var after: Int64 = 0
        var batchSize = limits.maxOpsPerPush
        var refreshed = false
        let queued = try await local { try await store.facts().pendingChanges }
        report { $0.changesTotal = $0.changesSent + queued }
        while true {
            let (ops, schemaVersion) = try await local { try await store.outboxBatch(after: after, limit: batchSize) }
            guard let last = ops.last else { return total }
            let request = PushRequest(
                deviceId: api.deviceId, schemaVersion: schemaVersion, clientSeqRange: ClientSeqRange(from: ops[0].clientSeq, to: last.clientSeq),
                ops: ops)
            let response: PushResponse
            do {
                response = try await api.push(request, token: token)
            } catch let failure where failure.status == 413 && ops.count > 1 {
                batchSize = max(ops.count / 2, 1)
                continue
            } catch let failure where failure.code == .validationFailed && failure.details["field"] == "ops" && !refreshed {
                refreshed = true
                batchSize = try await refreshLimits().maxOpsPerPush
                continue
            } catch {
                throw await stopping(error)
            }
            let tally = try await local { try await store.apply(response.results, to: ops, syncedAt: clock.now()) }
            total.add(tally)
            report { $0.changesSent += ops.count }
            status.update { $0.minSupportedAppVersion = response.minSupportedAppVersion }
            guard tally.retry == 0 else {
                throw .transient(
                    .refused(status: 503, error: .init(code: .temporarilyUnavailable, message: "the server asked to retry"), retryAfter: nil))
            }
            after = last.clientSeq
        }
    }
}

extension PushTally {
    mutating func add(_ other: PushTally) {
        acknowledged += other.acknowledged
        deferred += other.deferred
        issues += other.issues
        retry += other.retry
    }
}
