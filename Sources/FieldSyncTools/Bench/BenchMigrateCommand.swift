import App
import Foundation
import Seeding
import Support
import SyncEngine
import Worker

/// `fieldsync bench migrate`: throughput of the stored-record schema migration.
struct BenchMigrateCommand: Command {
    let path = ["bench", "migrate"]
    let summary = "measure the record-migration job's records/s on a large database"
    let valueOptions: Set<String> = ["records", "users", "batch"]
    let usage = """
        Usage: fieldsync bench migrate [--records 1000000] [--users 1000] [--batch 500]

        Starts FieldSync on a throwaway embedded PostgreSQL (durable commits, no worker), loads
        --records jobs over --users users stored at schema version 2 (before the built-in
        schema renamed laborMinutes to labor_minutes), then runs the record-migration job
        through the job runner, --batch records per transaction, and reports its time and
        records/s. Each upgraded record is a new change, as devices pull it.
        """

    func run(_ arguments: CommandLineArguments, environment: Environment) throws -> Int32 {
        let records = try arguments.number("records", 1_000_000)
        let users = try arguments.number("users", 1_000)
        let batch = try arguments.number("batch", 500)
        let bench = try BenchServer.start(environment: environment) { $0.runsWorker = false }
        defer { bench.stop() }
        let core = bench.application.core
        print("FieldSync record-migration benchmark: \(records) records at version 2, schema version \(core.schema.version) (durable commits)")
        let seeder = BenchmarkSeeder(database: core.database)
        let loadTime = try measureMilliseconds {
            _ = try seeder.seed(users: users, records: records, schemaVersion: 2)
            try seeder.analyze()
        }
        print(String(format: "loaded %d records in %.1f s", records, loadTime / 1000))

        let migration = RecordMigration(store: core.syncStore, schema: core.schema)
        let runner = Application.jobRunner(core)
        var result: JobRunner.Result?
        let seconds = try measureMilliseconds { result = try runner.run(RecordMigrationJob(migration: migration, batchSize: batch)) } / 1000
        guard case .ran(_, .succeeded) = result, let run = try runner.runs.recent(job: "record-migration", limit: 1).first else {
            throw CommandError("the migration did not succeed: \(String(describing: result))")
        }
        let upgraded = run.counts["records"] ?? 0
        print(String(format: "migrated %d records in %.1f s (batches of %d): %.0f records/s", upgraded, seconds, batch, Double(upgraded) / seconds))
        let left = try migration.remaining()
        print("left below version \(core.schema.version): \(left)")
        return upgraded == records && left == 0 ? 0 : 1
    }
}
