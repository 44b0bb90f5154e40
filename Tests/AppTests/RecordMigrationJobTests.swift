import App
import AppTesting
import Foundation
import Postgres
import PostgresTesting
import Storage
import SyncEngine
import SyncProtocol
import Testing
import Worker

/// The `record-migration` job against a real database: records written by a server on schema
/// version 3, then a server on version 4 started on the same database, as an upgrade deploys it.
@Suite("Stored-record schema migration through the runner", .serialized)
struct RecordMigrationJobTests {
    /// The built-in schema raised to version 4: `jobs` translates its status one step (a
    /// translation that would go a step further if it ran twice) and gains `priority` with a
    /// default; `reports` renames the `temp` answer.
    static func schemaV4() throws -> URL {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let builtIn = root.appendingPathComponent("Sources/SyncEngine/Resources/schema.json")
        var document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: builtIn)) as? [String: Any])
        var collections = try #require(document["collections"] as? [String: Any])
        var jobs = try #require(collections["jobs"] as? [String: Any])
        var fields = try #require(jobs["fields"] as? [String: Any])
        fields["priority"] = ["type": "string"]
        jobs["fields"] = fields
        jobs["migrations"] =
            (jobs["migrations"] as? [Any] ?? []) + [
                [
                    "from": 3, "to": 4,
                    "actions": [
                        ["mapValues": ["field": "status", "values": ["in_progress": "on_hold", "on_hold": "complete"]]],
                        ["addDefault": ["field": "priority", "value": "normal"]],
                    ],
                ] as [String: Any]
            ]
        var reports = try #require(collections["reports"] as? [String: Any])
        reports["migrations"] =
            (reports["migrations"] as? [Any] ?? []) + [
                ["from": 3, "to": 4, "within": ["answers": [["rename": ["from": "temp", "to": "temperatureC"]]]]] as [String: Any]
            ]
        collections["jobs"] = jobs
        collections["reports"] = reports
        document["collections"] = collections
        document["version"] = 4
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("schema-v4-\(UUID().uuidString.prefix(8)).json")
        try JSONSerialization.data(withJSONObject: document).write(to: file)
        return file
    }

    /// A server on version 4 of the schema, on `database` (where version 3 wrote records).
    static func upgradedServer(on database: PostgresConfiguration) async throws -> TestServer {
        let file = try schemaV4()
        return try await TestServer.start(database: database) { configuration in
            configuration.runsWorker = false
            configuration.schemaFile = file
        }
    }

    static func job(of server: TestServer) throws -> any Job {
        try #require(server.application.features.flatMap(\.jobs).first { $0.name == "record-migration" })
    }

    static func record(_ server: TestServer, _ collection: String, _ recordId: String) throws -> StoredRecord? {
        try server.core.syncStore.transaction { try $0.lockRecords([RecordKey(collection: collection, recordId: recordId)]).first }
    }

    @Test("An old-version record and its report answers are pulled upgraded after the run; deletions are left as they are")
    func pulledUpgraded() async throws {
        let old = try await TestServer.start { $0.runsWorker = false }
        let ana = try await old.device()
        let job = try await ana.applied(ana.create("jobs", "j-1", ["title": "Boiler", "status": "in_progress"]))
        _ = try await ana.applied(ana.create("jobs", "j-gone", ["title": "Old"]))
        _ = try await ana.applied(ana.delete("jobs", "j-gone", base: nil))
        let reported = try await ana.syncReports([SyncDevice.report("rep-1", answers: ["temp": 21, "ok": "yes"])])
        #expect(reported.first?["status"] == "ACCEPTED")
        let synced = try await ana.drain().cursor
        old.stop()

        let server = try await Self.upgradedServer(on: old.database)
        defer { server.stop() }
        let runner = Application.jobRunner(server.core)
        let result = try runner.run(try Self.job(of: server))
        guard case .ran(_, .succeeded) = result else {
            Issue.record("\(result)")
            return
        }
        let run = try #require(try runner.runs.recent(job: "record-migration", limit: 1).first)
        #expect(run.counts == ["records": 2] && run.done == 2 && run.total == 2)

        let phone = try await SyncDevice(server: server, user: ana.user, password: ana.password, deviceId: ana.deviceId, appVersion: "2.3.0")
        let pulled = try await phone.drain(from: synced)
        let upgradedJob = try #require(pulled.last("jobs", "j-1"))
        #expect(upgradedJob.payload?["status"] == "on_hold" && upgradedJob.payload?["priority"] == "normal")
        #expect(upgradedJob.schemaVersion == 4 && upgradedJob.serverSeq > job)
        #expect(upgradedJob.fieldMeta?["priority"] == FieldMeta(seq: upgradedJob.serverSeq), "the server set it")
        let report = try #require(pulled.changes.first { $0.collection == "reports" })
        #expect(report.payload?["answers"] == ["temperatureC": 21, "ok": "yes"])
        #expect(pulled.last("jobs", "j-gone") == nil)
        #expect(try Self.record(server, "jobs", "j-gone")?.schemaVersion == 3)

        _ = try runner.run(try Self.job(of: server))
        #expect(try runner.runs.recent(job: "record-migration", limit: 1).first?.counts == ["records": 0])
    }

    @Test("A push on a record not migrated yet upgrades it once; a run stopped after one batch is finished by the next, no more")
    func pushAndResume() async throws {
        let old = try await TestServer.start { $0.runsWorker = false }
        let ana = try await old.device()
        var seqs: [String: Int64] = [:]
        for id in ["j-1", "j-2", "j-3", "j-4", "j-5"] {
            seqs[id] = try await ana.applied(ana.create("jobs", id, ["title": .string(id), "status": "in_progress"]))
        }
        old.stop()

        let server = try await Self.upgradedServer(on: old.database)
        defer { server.stop() }
        let runner = Application.jobRunner(server.core)
        let migration = RecordMigration(store: server.core.syncStore, schema: server.core.schema)
        // What a process that died after one committed batch of two leaves behind.
        let dead = try runner.runs.begin(job: "record-migration", requestedBy: nil)
        let first = try migration.upgradeBatch(limit: 2)
        #expect(first == RecordMigration.Batch(selected: 2, upgraded: 2))
        try runner.runs.progress(dead, done: 2, total: 5, counts: ["records": 2])
        let migratedFirst = try server.core.syncStore.transaction { tx in
            try tx.lockRecords(["j-1", "j-2", "j-3", "j-4", "j-5"].map { RecordKey(collection: "jobs", recordId: $0) })
        }.filter { $0.schemaVersion == 4 }.map(\.recordId)
        let waiting = try #require(Set(["j-1", "j-2", "j-3", "j-4", "j-5"]).subtracting(migratedFirst).sorted().first)

        // A device on the new version edits a record the run has not reached yet.
        let tablet = try await SyncDevice(server: server, user: ana.user, password: ana.password, deviceId: "dev-tab", appVersion: "2.3.0")
        let edit = try await tablet.push1(tablet.update("jobs", waiting, ["notes": "checked"], base: seqs[waiting]), schemaVersion: 4)
        #expect(edit.status == .applied)
        let pushed = try #require(try Self.record(server, "jobs", waiting))
        #expect(pushed.schemaVersion == 4 && pushed.payload["status"] == "on_hold" && pushed.payload["notes"] == "checked")

        let result = try runner.run(RecordMigrationJob(migration: migration, batchSize: 2))
        guard case .ran(let id, .succeeded) = result else {
            Issue.record("\(result)")
            return
        }
        let runs = try runner.runs.recent(job: "record-migration", limit: 5)
        #expect(runs.map(\.id) == [id, dead])
        #expect(runs.last?.outcome == .interrupted && runs.last?.counts == ["records": 2])
        #expect(runs.first?.counts == ["records": 2] && runs.first?.done == 2 && runs.first?.total == 2)

        for id in ["j-1", "j-2", "j-3", "j-4", "j-5"] {
            let record = try #require(try Self.record(server, "jobs", id))
            #expect(record.schemaVersion == 4 && record.payload["status"] == "on_hold", "\(id) upgraded once")
        }
        #expect(try Self.record(server, "jobs", waiting) == pushed, "the run left the pushed record alone")
    }

    @Test("Pushes racing the run: every record is upgraded exactly once, by whichever wrote it first")
    func pushesDuringTheRun() async throws {
        let old = try await TestServer.start { $0.runsWorker = false }
        let ana = try await old.device()
        let ids = (0..<200).map { String(format: "j-%03d", $0) }
        var seqs: [String: Int64] = [:]
        for chunk in stride(from: 0, to: ids.count, by: 50).map({ ids[$0..<$0 + 50] }) {
            let results = try await ana.push(chunk.map { ana.create("jobs", $0, ["title": .string($0), "status": "in_progress"]) })
            for (id, result) in zip(chunk, results) { seqs[id] = result.serverSeq }
        }
        old.stop()

        let server = try await Self.upgradedServer(on: old.database)
        defer { server.stop() }
        let runner = Application.jobRunner(server.core)
        let job = RecordMigrationJob(migration: RecordMigration(store: server.core.syncStore, schema: server.core.schema), batchSize: 5)
        let running = Task { try await onDedicatedThread { try runner.run(job) } }
        // The run takes records in storage order; the edits start from the other end.
        let edited = Array(ids.reversed().prefix(50))
        let tablet = try await SyncDevice(server: server, user: ana.user, password: ana.password, deviceId: "dev-tab", appVersion: "2.3.0")
        for chunk in stride(from: 0, to: edited.count, by: 5).map({ edited[$0..<$0 + 5] }) {
            let results = try await tablet.push(chunk.map { tablet.update("jobs", $0, ["notes": "checked"], base: seqs[$0]) }, schemaVersion: 4)
            #expect(results.allSatisfy { $0.status == .applied }, "\(results)")
        }
        guard case .ran(_, .succeeded) = try await running.value else {
            Issue.record("the run did not succeed")
            return
        }

        let records = try server.core.syncStore.transaction { tx in try tx.lockRecords(ids.map { RecordKey(collection: "jobs", recordId: $0) }) }
        #expect(records.count == 200)
        #expect(records.allSatisfy { $0.schemaVersion == 4 && $0.payload["status"] == "on_hold" }, "each upgraded once")
        #expect(records.filter { edited.contains($0.recordId) }.allSatisfy { $0.payload["notes"] == "checked" })
        // The default a push's upgrade adds carries that push's number, the record's latest.
        let byPush = records.filter { edited.contains($0.recordId) && $0.fieldMeta["priority"]?.seq == $0.serverSeq }.count
        let run = try #require(try runner.runs.recent(job: "record-migration", limit: 1).first)
        #expect(run.counts["records"] == 200 - byPush, "the run upgraded exactly the records no push reached first")
    }
}
