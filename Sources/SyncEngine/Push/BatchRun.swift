import SyncProtocol

/// Rules 3 to 8 over the attempted ops of one run, in `clientSeq` order.
struct BatchRun {
    /// Why later ops of an entity are not attempted.
    enum Block {
        /// An op of the entity ended `conflict` or `rejected` in this push (rule 3).
        case failed(opId: String)
        /// An op of the entity is deferred; later ones wait with it.
        case deferred(opId: String, missing: [String])
    }

    var workspace: Workspace
    let validator: OpValidator
    /// Finalized attachments named by the run's `dependsOn` lists, with their records.
    let finalized: Set<AttachmentRef>
    var blocked: [String: Block]

    /// Attempts one received op and notes whether it blocks later ops of its entity.
    mutating func attempt(_ pending: PendingOp) -> OpResult {
        let result = decide(pending)
        let entity = pending.op.effectiveEntityKey
        if blocked[entity] == nil {
            switch result.status {
            case .conflict, .rejected: blocked[entity] = .failed(opId: pending.op.opId)
            case .deferred: blocked[entity] = .deferred(opId: pending.op.opId, missing: result.missing?.attachmentIds ?? [])
            case .applied, .retry: break
            }
        }
        return result
    }

    private mutating func decide(_ pending: PendingOp) -> OpResult {
        let op = pending.op
        switch blocked[op.effectiveEntityKey] {
        case .failed(let blocker):
            return OpResult(
                opId: op.opId, status: .conflict, code: .predecessorFailed, message: "an earlier op of \(op.effectiveEntityKey) failed",
                recordId: op.recordId, details: ["blockedBy": .string(blocker)])
        case .deferred(let blocker, let missing):
            return OpResult(
                opId: op.opId, status: .deferred, code: .dependencyPending, message: "an earlier op of \(op.effectiveEntityKey) is deferred",
                recordId: op.recordId, missing: .attachments(missing), details: ["blockedBy": .string(blocker)])
        case nil:
            break
        }
        let validated: ValidatedOp
        do {
            validated = try validator.validate(
                pending, current: workspace.records[RecordKey(collection: op.collection, recordId: op.recordId)],
                conflicts: workspace.conflicts)
        } catch {
            return error.result(for: op)
        }
        let record = RecordKey(collection: op.collection, recordId: op.recordId)
        // Only an attachment registered for this very record satisfies the dependency.
        let missing = Set(op.dependsOn ?? []).filter { !finalized.contains(AttachmentRef(attId: $0, record: record)) }.sorted()
        guard missing.isEmpty else {
            return OpResult(
                opId: op.opId, status: .deferred, code: .dependencyPending, message: "waiting for attachments",
                recordId: op.recordId, missing: .attachments(missing))
        }
        return workspace.apply(validated)
    }
}
