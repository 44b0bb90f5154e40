public import SyncEngine

/// Upgrades the stored records written under an older schema version to the current one, in
/// batches each committed on its own, with `done` of `total` recorded after each. Devices pull
/// the upgraded records as ordinary changes. A run stopped half-way leaves every finished
/// batch stored with its version, so the next run upgrades exactly the rest.
public struct RecordMigrationJob: Job {
    public let name = "record-migration"
    public let summary = "Upgrades stored records of an older schema version with the collections' declared migrations."
    private let migration: RecordMigration
    private let batchSize: Int

    public init(migration: RecordMigration, batchSize: Int = 500) {
        precondition(batchSize > 0, "a batch upgrades at least one record")
        self.migration = migration
        self.batchSize = batchSize
    }

    public func schedule(in settings: ServerSettings) -> JobSchedule {
        JobSchedule(minutes: settings.recordMigrationJobMinutes)
    }

    public func run(_ progress: JobProgress) throws {
        let total = try migration.remaining()
        var upgraded = 0
        try progress.report(done: 0, total: total, counts: ["records": 0])
        while true {
            let batch = try migration.upgradeBatch(limit: batchSize)
            upgraded += batch.upgraded
            if batch.selected > 0 { try progress.report(done: upgraded, total: max(total, upgraded), counts: ["records": upgraded]) }
            if batch.selected < batchSize { return }
        }
    }
}
