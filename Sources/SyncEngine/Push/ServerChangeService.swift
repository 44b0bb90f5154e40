public import Foundation
import SyncProtocol

/// Changes that originate on the server — conflict resolutions and order decisions — written
/// the same way pushes are: one transaction, records locked, one ``WriteSet`` with new
/// sequence numbers, change log rows and live events.
///
/// ```swift
/// let changes = ServerChangeService(store: store, schema: schema)
/// let entry = try changes.resolveConflict("c-1", ResolveRequest(choice: .server), by: dispatcher)
/// let order = try changes.confirmOrder("ord-7", by: dispatcher)
/// ```
///
/// Every method throws ``SyncError`` for a refused request (its `code` maps to the HTTP status).
/// Each runs in its own transaction, or in `transaction` when the caller passes one it holds
/// (e.g. to store an `Idempotency-Key` row in the same commit).
public struct ServerChangeService: Sendable {
    public let store: any SyncStore
    public let schema: Schema
    let clock: @Sendable () -> Date
    let makeId: @Sendable () -> String

    public init(
        store: any SyncStore, schema: Schema, clock: @escaping @Sendable () -> Date = { Date() },
        makeId: @escaping @Sendable () -> String = { UUID().uuidString.lowercased() }
    ) {
        self.store = store
        self.schema = schema
        self.clock = clock
        self.makeId = makeId
    }

    /// Runs `change` in `transaction`, or in a new one.
    func transact(
        conflictIds: [String], keys: [RecordKey], in transaction: (any SyncTransaction)?,
        _ change: @escaping @Sendable (inout Workspace) throws -> Void
    ) throws -> WriteSet {
        if let transaction { return try write(conflictIds: conflictIds, keys: keys, in: transaction, change) }
        return try store.transaction { tx in try write(conflictIds: conflictIds, keys: keys, in: tx, change) }
    }

    /// Locks the conflicts, then their records and `keys`; changes, numbers and writes.
    private func write(
        conflictIds: [String], keys: [RecordKey], in tx: any SyncTransaction, _ change: (inout Workspace) throws -> Void
    ) throws -> WriteSet {
        let conflicts = conflictIds.isEmpty ? [] : try tx.conflicts(ids: conflictIds)
        let allKeys = Set(keys + conflicts.map { RecordKey(collection: $0.entry.collection, recordId: $0.entry.recordId) }).sorted()
        var workspace = Workspace(schema: schema, now: clock(), makeId: makeId, records: try tx.lockRecords(allKeys), conflicts: conflicts)
        try change(&workspace)
        return try tx.number(workspace.draft, changes: workspace.changeCount).writes
    }
}
