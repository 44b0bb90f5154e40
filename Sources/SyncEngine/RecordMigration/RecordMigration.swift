public import Foundation

/// Brings the stored records of an older schema version up to the current one, a batch per
/// transaction, with the collections' declared migration steps (the ones pushes apply to ops).
///
/// Each upgraded record is an ordinary change attributed to the server: a new `serverSeq` and
/// change log row, so the next pull of every device that sees it delivers it upgraded. A push
/// that reaches a record first upgrades it in its own transaction (`Workspace` upgrades every
/// record it loads), and a batch re-reads each record under its lock, so a record is upgraded
/// once, whichever comes first. The version is stored on each record, so a run stopped half-way
/// is resumed by the next: it finds exactly the records still below the current version.
///
/// ```swift
/// let migration = RecordMigration(store: store, schema: schema)
/// let total = try migration.remaining()
/// while true { let batch = try migration.upgradeBatch(limit: 500); if batch.selected < 500 { break } }
/// ```
public struct RecordMigration: Sendable {
    public let store: any SyncStore
    public let schema: Schema
    private let clock: @Sendable () -> Date

    public init(store: any SyncStore, schema: Schema, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.store = store
        self.schema = schema
        self.clock = clock
    }

    /// What one batch did.
    public struct Batch: Sendable, Equatable {
        /// Records found below the current version (at most the limit).
        public var selected: Int
        /// Of those, the ones this batch upgraded (a push may have upgraded or deleted one meanwhile).
        public var upgraded: Int

        public init(selected: Int, upgraded: Int) {
            self.selected = selected
            self.upgraded = upgraded
        }
    }

    /// How many live records of the schema's collections are below its version.
    public func remaining() throws -> Int {
        try store.transaction { tx in try tx.countRecords(belowSchemaVersion: schema.version, in: collections) }
    }

    /// Upgrades up to `limit` records in one transaction.
    /// - Returns: how many it found and how many it upgraded; fewer found than `limit` means none are left.
    public func upgradeBatch(limit: Int) throws -> Batch {
        precondition(limit > 0, "a batch upgrades at least one record")
        return try store.transaction { tx in
            let keys = try tx.records(belowSchemaVersion: schema.version, in: collections, limit: limit).sorted()
            guard !keys.isEmpty else { return Batch(selected: 0, upgraded: 0) }
            var workspace = Workspace(schema: schema, now: clock(), makeId: { "" }, records: try tx.lockRecords(keys), conflicts: [])
            let upgraded = workspace.commitUpgrades()
            _ = try tx.number(workspace.draft, changes: workspace.changeCount)
            return Batch(selected: keys.count, upgraded: upgraded)
        }
    }

    private var collections: [String] { schema.collections.keys.sorted() }
}
