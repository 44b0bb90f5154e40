import Foundation
import SyncEngine
import SyncEngineTesting
import SyncProtocol
import Testing

@Suite("Stored records upgraded by the declared migrations")
struct RecordUpgradeTests {
    /// Version 4 of a two-collection schema: `jobs` translates its status (a translation that
    /// would go one step further if it ran twice) and gains `priority`; `reports` renames a
    /// member of every `answers`.
    static let v4 = """
        {"version": 4, "collections": {
          "jobs": {"fields": {"title": {"type": "string"}, "status": {"type": "string"}, "priority": {"type": "string"},
                              "labor_minutes": {"type": "integer"}},
                   "migrations": [
                     {"from": 2, "to": 3, "actions": [{"rename": {"from": "laborMinutes", "to": "labor_minutes"}}]},
                     {"from": 3, "to": 4, "actions": [
                       {"mapValues": {"field": "status", "values": {"in_progress": "on_hold", "on_hold": "complete"}}},
                       {"addDefault": {"field": "priority", "value": "normal"}}]}]},
          "reports": {"fields": {"answers": {"type": "object"}},
                      "migrations": [{"from": 3, "to": 4, "within": {"answers": [{"rename": {"from": "temp", "to": "temperatureC"}}]}}]}
        }}
        """

    static func record(_ collection: String, _ payload: [String: JSONValue], version: Int, deleted: Bool = false) -> StoredRecord {
        StoredRecord(
            collection: collection, recordId: "r-1", payload: payload,
            fieldMeta: payload.mapValues { _ in FieldMeta(seq: 7, opId: "op-7", deviceId: "dev-a") }, serverSeq: 7,
            tombstoneSeq: deleted ? 7 : nil, schemaVersion: version, createdAt: "2026-01-01T00:00:00Z", updatedAt: "2026-01-01T00:00:00Z")
    }

    @Test("A record is rewritten by every step from its version; moved and translated fields keep their metadata")
    func upgradesThroughEverySteps() throws {
        let schema = try Schema(jsonData: Data(Self.v4.utf8))
        let old = Self.record("jobs", ["title": "Boiler", "status": "in_progress", "laborMinutes": 30], version: 2)
        let upgraded = try #require(schema.upgraded(old))
        #expect(upgraded.schemaVersion == 4)
        #expect(upgraded.payload == ["title": "Boiler", "status": "on_hold", "labor_minutes": 30, "priority": "normal"])
        let kept = FieldMeta(seq: 7, opId: "op-7", deviceId: "dev-a")
        #expect(upgraded.fieldMeta == ["title": kept, "status": kept, "labor_minutes": kept], "the added default has none yet")
    }

    @Test("Current, deleted, newer and unknown-collection records need no upgrade")
    func noUpgrade() throws {
        let schema = try Schema(jsonData: Data(Self.v4.utf8))
        #expect(schema.upgraded(Self.record("jobs", ["status": "in_progress"], version: 4)) == nil)
        #expect(schema.upgraded(Self.record("jobs", ["status": "in_progress"], version: 3, deleted: true)) == nil)
        #expect(schema.upgraded(Self.record("jobs", ["status": "in_progress"], version: 5)) == nil)
        #expect(schema.upgraded(Self.record("visits", ["status": "planned"], version: 3)) == nil)
    }

    @Test("Report answers have their own declared steps, for stored records and for ops on accept")
    func answers() throws {
        let schema = try Schema(jsonData: Data(Self.v4.utf8))
        let stored = Self.record("reports", ["answers": ["temp": 21, "ok": "yes"]], version: 3)
        #expect(schema.upgraded(stored)?.payload == ["answers": ["temperatureC": 21, "ok": "yes"]])
        let op = ["answers": FieldChange(old: ["temp": 20], new: ["temp": 21])]
        #expect(
            schema.migrate(op, type: .update, collection: "reports", from: 3) == [
                "answers": FieldChange(old: ["temperatureC": 20], new: ["temperatureC": 21])
            ])
    }

    @Test("`within` must name an object field")
    func withinNeedsAnObject() {
        let text = """
            {"version": 2, "collections": {"jobs": {"fields": {"title": {"type": "string"}},
              "migrations": [{"from": 1, "to": 2, "within": {"title": [{"drop": {"field": "x"}}]}}]}}}
            """
        #expect(throws: SchemaError.self) { try Schema(jsonData: Data(text.utf8)) }
    }

    @Test("A push on an old record upgrades it first, once, and the migration then leaves it alone")
    func pushUpgradesOnce() throws {
        let store = InMemorySyncStore()
        let schema = try Schema(jsonData: Data(Self.v4.utf8))
        try store.transaction { tx in
            var writes = WriteSet()
            writes.records = [Self.record("jobs", ["title": "Boiler", "status": "in_progress", "assigneeId": "u-ana"], version: 3)]
            try tx.write(writes)
        }
        let migration = RecordMigration(store: store, schema: schema)
        #expect(try migration.remaining() == 1)
        let processor = PushProcessor(schema: schema)
        let op = PushOp(
            opId: "op-1", clientSeq: 1, collection: "jobs", recordId: "r-1", type: .update, baseServerSeq: 7,
            occurredAt: RFC3339.string(from: Date()), fields: ["title": FieldChange(new: "Boiler room")])
        let result = try store.transaction { tx in try processor.process(PushBatch(principal: People.ana, schemaVersion: 4, ops: [op]), in: tx) }
        #expect(result.results.first?.status == .applied)
        let pushed = try #require(store.state.record("jobs", "r-1"))
        #expect(pushed.schemaVersion == 4 && pushed.payload["status"] == "on_hold" && pushed.payload["title"] == "Boiler room")
        #expect(pushed.fieldMeta["priority"] == FieldMeta(seq: pushed.serverSeq), "the default is the push's change, by the server")
        #expect(try migration.remaining() == 0)
        #expect(try migration.upgradeBatch(limit: 10) == RecordMigration.Batch(selected: 0, upgraded: 0))
        #expect(store.state.record("jobs", "r-1") == pushed)
    }
}
