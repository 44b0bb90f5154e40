import App
import Foundation
import Postgres
import SyncEngine
import Testing

/// The sync centre names what retention removed from a device's journal.
@Suite("Journal horizon in the sync centre, over HTTP")
struct WebJournalHorizonTests {
    @Test("A device first seen inside the op-result window has a complete journal; an older one says what retention removed")
    func horizon() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        try SettingsPreviewScenario.load(server.database)
        try server.database.withConnection { connection in
            try connection.execute("UPDATE devices SET first_seen_at = now() - interval '100 days' WHERE device_id = 'p-stale'")
        }
        let admin = try server.signedIn()
        let fresh = try admin.get("/admin/sync/devices/p-new").body
        #expect(fresh.contains("Journal complete since this device first synced on") && fresh.contains("retention removes entries after 30 days"))
        let stale = try admin.get("/admin/sync/devices/p-stale").body
        #expect(stale.contains("Journal kept since ") && stale.contains("older entries removed by retention (30 days)"))
        let list = try admin.get("/admin/sync").body
        #expect(list.contains("Journals keep 30 days"))
    }
}
