import Postgres
import Storage
import SyncEngine
import SyncEngineTesting
import Testing

/// The settings port, in memory and on PostgreSQL.
@Suite("Settings store contract")
struct SettingsStoreContractTests {
    @Test(
        "defaults apply until set; an update stores and audits only the keys that changed, newest first",
        arguments: Implementation.allCases)
    func updatesAndAudit(_ implementation: Implementation) throws {
        let database = try implementation.database()
        defer { database?.shutdown() }
        let store: any SettingsStore = database.map { PostgresSettingsStore(database: $0) } ?? InMemorySettingsStore()
        #expect(try store.current() == ServerSettings())
        var changed = ServerSettings()
        changed.minSupportedAppVersion = "2.4.0"
        changed.hardMinimumAppVersion = "1.9.0"

        #expect(
            try store.update(changed, by: nil) == [
                SettingChange(key: "hardMinimumAppVersion", old: "null", new: "\"1.9.0\""),
                SettingChange(key: "minSupportedAppVersion", old: "\"2.0.0\"", new: "\"2.4.0\""),
            ])
        #expect(try store.current() == changed)
        #expect(try store.update(changed, by: nil).isEmpty)
        changed.hardMinimumAppVersion = nil
        #expect(try store.update(changed, by: nil).map(\.key) == ["hardMinimumAppVersion"])
        store.invalidate()
        #expect(try store.current() == changed)

        let trail = try store.auditTrail(limit: 2)
        #expect(trail.map(\.key) == ["hardMinimumAppVersion", "minSupportedAppVersion"])
        #expect(trail.map(\.new) == ["null", "\"2.4.0\""] && trail.allSatisfy { $0.userId == nil && $0.username == nil })
    }
}
