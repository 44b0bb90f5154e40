import Foundation
public import SyncEngine
import SyncProtocol
import Synchronization

/// A `SyncStore` (and the `PullReader` over it) in memory: what engine tests run on, held to
/// PostgreSQL's behaviour by the sync store's contract suite.
///
/// Transactions run one at a time (a lock held for the whole body) on a copy of the state; the copy replaces the
/// state when the body returns and is dropped when it throws, like a rollback.
///
/// ```swift
/// let store = InMemorySyncStore()
/// store.finalizeAttachment("att-1", of: RecordKey(collection: "part_usage", recordId: "p-1"))
/// let outcome = try PushService(store: store, processor: processor, logger: logger).push(request, by: ana)
/// let job = store.state.records[RecordKey(collection: "jobs", recordId: "job-1")]
/// ```
/// `@unchecked Sendable`: `committedState` and `failure` are only touched under `gate`.
public final class InMemorySyncStore: SyncStore, @unchecked Sendable {
    /// Everything the store holds; read it in tests through ``state``.
    public struct State: Sendable {
        public var records: [RecordKey: StoredRecord] = [:]
        /// Op log rows by device id, then op id.
        public var opLog: [String: [String: OpLogEntry]] = [:]
        public var highWater: [String: Int64] = [:]
        public var changes: [ChangeLogEntry] = []
        public var conflicts: [String: StoredConflict] = [:]
        public var events: [OutboxEvent] = []
        /// Recorded sync calls, oldest first.
        public var visits: [SyncVisit] = []
        public var finalizedAttachments: Set<AttachmentRef> = []
        /// Stored answers of idempotency keys.
        public var answers: [IdempotencyScope: StoredAnswer] = [:]
        /// The last reserved sequence number.
        public var sequence: Int64 = 0
        /// The id of the last transaction that wrote something; transactions run one at a time,
        /// so every one below the next is committed (a pull's horizon).
        public var lastTransaction: Int64 = 0
        /// The transaction that wrote each record's latest change, and each change.
        public var recordTransactions: [RecordKey: Int64] = [:]
        public var changeTransactions: [Int64] = []

        public init() {}

        /// The record `collection/recordId`, if it exists (tombstones included).
        public func record(_ collection: String, _ recordId: String) -> StoredRecord? {
            records[RecordKey(collection: collection, recordId: recordId)]
        }
    }

    /// Serializes transactions, like a database lock on everything.
    private let gate = NSLock()
    private var committedState = State()
    private var failure: (@Sendable (WriteSet) -> Bool)?

    public init() {}

    /// The committed state.
    public var state: State { gate.withLock { committedState } }

    /// Marks an attachment upload finalized (what Storage's finalize does).
    public func finalizeAttachment(_ id: String, of record: RecordKey) {
        _ = gate.withLock { committedState.finalizedAttachments.insert(AttachmentRef(attId: id, record: record)) }
    }

    /// Makes ``SyncTransaction/write(_:)`` throw for write sets matching `predicate` (`nil`: never).
    public func failWrites(when predicate: (@Sendable (WriteSet) -> Bool)?) { gate.withLock { failure = predicate } }

    public func transaction<T: Sendable>(_ body: (any SyncTransaction) throws -> T) throws -> T {
        try transaction { _, transaction in try body(transaction) }
    }
}

/// The idempotency ledger lives in the same state, so answers commit (or not) with their effects.
/// Transactions run one at a time, so a claim is always granted: a second request with the key
/// waits for the first instead of being told it is in progress.
extension InMemorySyncStore: IdempotentSyncStore {
    public func transaction<T>(_ body: (any IdempotencyLedger, any SyncTransaction) throws -> T) throws -> T {
        gate.lock()
        defer { gate.unlock() }
        let transaction = InMemoryTransaction(state: committedState, failure: failure)
        let value = try body(transaction, transaction)
        committedState = transaction.committed()
        return value
    }
}

/// The failure ``InMemorySyncStore/failWrites(when:)`` injects.
public struct InjectedStoreFailure: Error, Hashable {
    public init() {}
}

/// One in-memory transaction: a private copy of the state behind a mutex (the transaction
/// object crosses into the body's task, so it must be `Sendable`).
final class InMemoryTransaction: SyncTransaction, Sendable {
    private let state: Mutex<InMemorySyncStore.State>
    private let failure: (@Sendable (WriteSet) -> Bool)?

    init(state: InMemorySyncStore.State, failure: (@Sendable (WriteSet) -> Bool)?) {
        self.state = Mutex(state)
        self.failure = failure
    }

    func committed() -> InMemorySyncStore.State { state.withLock { $0 } }

    func lockDevice(_ deviceId: String, readingOps opIds: [String]) throws -> DeviceLock {
        state.withLock { state in
            let pending = (state.opLog[deviceId] ?? [:]).values.compactMap(\.pending).sorted { $0.op.clientSeq < $1.op.clientSeq }
            let device = DeviceState(deviceId: deviceId, highWater: state.highWater[deviceId] ?? 0, pending: pending)
            return (device, opIds.compactMap { state.opLog[deviceId]?[$0] }, state.sequence)
        }
    }

    func lockRecords(_ keys: [RecordKey]) throws -> [StoredRecord] {
        state.withLock { state in keys.compactMap { state.records[$0] } }
    }

    func records(belowSchemaVersion version: Int, in collections: [String], limit: Int) throws -> [RecordKey] {
        Array(awaitingUpgrade(below: version, in: collections).prefix(limit))
    }

    func countRecords(belowSchemaVersion version: Int, in collections: [String]) throws -> Int {
        awaitingUpgrade(below: version, in: collections).count
    }

    private func awaitingUpgrade(below version: Int, in collections: [String]) -> [RecordKey] {
        state.withLock { state in
            state.records.values.filter { !$0.isDeleted && $0.schemaVersion < version && collections.contains($0.collection) }.map(\.key)
        }
    }

    func finalizedAttachments(among ids: [String]) throws -> Set<AttachmentRef> {
        state.withLock { $0.finalizedAttachments.filter { ids.contains($0.attId) } }
    }

    func conflicts(ids: [String]) throws -> [StoredConflict] {
        state.withLock { state in ids.compactMap { state.conflicts[$0] } }
    }

    func reserveSequence(count: Int) throws -> [Int64] {
        state.withLock { state in
            defer { state.sequence += Int64(count) }
            return (1...Int64(count)).map { state.sequence + $0 }
        }
    }

    func write(_ writes: WriteSet) throws {
        if failure?(writes) == true { throw InjectedStoreFailure() }
        state.withLock { state in
            let transaction = state.lastTransaction + 1
            state.lastTransaction = transaction
            for entry in writes.opLog { state.opLog[entry.deviceId, default: [:]][entry.opId] = entry }
            for record in writes.records {
                state.records[record.key] = record
                state.recordTransactions[record.key] = transaction
            }
            state.changes += writes.changes
            state.changeTransactions += writes.changes.map { _ in transaction }
            for conflict in writes.openedConflicts { state.conflicts[conflict.id] = conflict }
            for entry in writes.resolvedConflicts { state.conflicts[entry.id]?.entry = entry }
            state.events += writes.events
            if let device = writes.deviceHighWater { state.highWater[device.deviceId] = device.highWater }
            if let visit = writes.visit { state.visits.append(visit) }
        }
    }
}

extension InMemoryTransaction: IdempotencyLedger {
    func claim(_ scope: IdempotencyScope) throws -> (claimed: Bool, answer: StoredAnswer?) {
        (true, state.withLock { $0.answers[scope] })
    }

    func store(_ answer: StoredAnswer, for scope: IdempotencyScope) throws {
        state.withLock { $0.answers[scope] = answer }
    }
}
