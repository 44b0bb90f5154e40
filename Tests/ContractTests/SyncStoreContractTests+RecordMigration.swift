import Foundation
import SyncEngine
import SyncEngineTesting
import SyncProtocol
import Testing

extension SyncStoreContractTests {
    /// Version 4 of `jobs`: a status translation that would go one step further if it ran twice.
    static let jobsV4 = """
        {"version": 4, "collections": {"jobs": {
          "fields": {"title": {"type": "string"}, "status": {"type": "string"}, "notes": {"type": "string"},
                     "assigneeId": {"type": "string"}, "teamId": {"type": "string"}},
          "migrations": [{"from": 3, "to": 4, "actions": [
            {"mapValues": {"field": "status", "values": {"in_progress": "on_hold", "on_hold": "complete"}}}]}]}}}
        """

    @Test(
        "Records below the schema version are listed live ones only, upgraded a batch at a time, and pulled as new changes",
        arguments: Implementation.allCases)
    func recordMigration(_ implementation: Implementation) throws {
        let h = try SyncSubject(implementation)
        for id in ["j-1", "j-2", "j-3", "j-gone"] {
            _ = try h.applied(h.ops.op(People.ana, .create, "jobs", id, ["title": "t", "status": "in_progress"]), by: People.ana)
        }
        _ = try h.applied(h.ops.op(People.ana, .create, "visits", "v-1", ["siteId": "s"]), by: People.ana)
        let gone = try #require(try h.record("jobs", "j-gone"))
        _ = try h.applied(h.ops.op(People.ana, .delete, "jobs", "j-gone", base: gone.serverSeq), by: People.ana)
        let synced = try h.drain(People.ana).cursor
        let migration = RecordMigration(store: h.store, schema: try Schema(jsonData: Data(Self.jobsV4.utf8)))

        #expect(try migration.remaining() == 3, "deleted records and collections the schema lacks are not counted")
        #expect(try migration.upgradeBatch(limit: 2) == RecordMigration.Batch(selected: 2, upgraded: 2))
        #expect(try migration.remaining() == 1)
        #expect(try migration.upgradeBatch(limit: 2) == RecordMigration.Batch(selected: 1, upgraded: 1))
        #expect(try migration.upgradeBatch(limit: 2) == RecordMigration.Batch(selected: 0, upgraded: 0))

        let pulled = try h.drain(People.ana, from: synced).changes
        #expect(pulled.map(\.recordId).sorted() == ["j-1", "j-2", "j-3"])
        #expect(pulled.allSatisfy { $0.payload?["status"] == "on_hold" && $0.schemaVersion == 4 && $0.type == .upsert })
        #expect(try h.record("jobs", "j-gone")?.schemaVersion == 3)
        #expect(try h.record("visits", "v-1")?.schemaVersion == 3)
    }
}
