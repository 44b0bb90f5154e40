import App
import Foundation
import Postgres
import Storage
import SyncEngine
import Testing

@Suite("Settings page, over HTTP")
struct WebSettingsTests {
    /// The settings form as the page shows the defaults, with `changes` typed over it.
    static func form(_ changes: [String: String] = [:]) -> [(String, String)] {
        var fields = [
            "minSupportedAppVersion": "2.0.0", "hardMinimumAppVersion": "", "maintenanceRetryAfterSeconds": "300",
            "opResultRetentionDays": "30", "tombstoneRetentionDays": "60", "uploadSessionHours": "72", "localRetentionDays": "14",
            "maxAttachmentBytes": "50", "maxAttachmentBytesPerRecord": "150", "maxOpsPerPush": "50", "maxPullLimit": "500",
            "retentionJobMinutes": "60", "uploadSessionsJobMinutes": "60", "liveFeedOutboxJobMinutes": "10",
            "recordMigrationJobMinutes": "60",
        ]
        fields.merge(changes) { _, new in new }
        return fields.sorted { $0.key < $1.key }
    }

    @Test("A valid change is stored, audited with who and what, and announced as settings.changed in one go")
    func save() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        let admin = try server.signedIn()
        let response = try admin.submit(
            "/admin/settings", from: "/admin/settings",
            Self.form(["minSupportedAppVersion": "2.3.0", "maxOpsPerPush": "40", "confirmPreview": "yes"]))
        #expect(response.status == 303 && response.location == "/admin/settings?notice=saved")
        let current = try server.app.core.settings.current()
        #expect(current.minSupportedAppVersion == "2.3.0" && current.maxOpsPerPush == 40)
        let audit = try server.app.core.settings.auditTrail()
        #expect(audit.map(\.key).sorted() == ["maxOpsPerPush", "minSupportedAppVersion"])
        #expect(audit.allSatisfy { $0.username == "admin" })
        #expect(audit.first { $0.key == "maxOpsPerPush" }.map { [$0.old, $0.new] } == ["50", "40"])
        let events = try server.database.withConnection { connection in
            try connection.query("SELECT data::text AS data FROM events WHERE type = 'settings.changed'").map {
                try $0.decode("data", as: String.self)
            }
        }
        #expect(events.count == 1)
        #expect(events.first?.contains(#""maxOpsPerPush""#) == true && events.first?.contains(#""minSupportedAppVersion""#) == true)
        let page = try admin.get("/admin/settings?notice=saved").body
        #expect(page.contains("Settings saved."))
        #expect(page.contains("Minimum supported version") && page.contains(">2.0.0<") && page.contains(">2.3.0<"))
        #expect(page.contains(">50 ops<") && page.contains(">40 ops<"))
        let again = try admin.submit(
            "/admin/settings", from: "/admin/settings", Self.form(["minSupportedAppVersion": "2.3.0", "maxOpsPerPush": "40"]))
        #expect(again.status == 303, "unchanged versions need no preview")
        #expect(again.location == "/admin/settings?notice=unchanged")
        #expect(try server.integer("SELECT count(*) FROM settings_audit") == 2)
    }

    @Test("An invalid value comes back next to its field with the input kept, and nothing is stored")
    func invalid() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        let admin = try server.signedIn()
        let response = try admin.submit(
            "/admin/settings", from: "/admin/settings",
            Self.form(["tombstoneRetentionDays": "10", "minSupportedAppVersion": "two", "maxOpsPerPush": "45"]))
        #expect(response.status == 422)
        #expect(response.body.contains("2 settings need your attention. Nothing was saved."))
        #expect(response.body.contains("Enter a whole number of days from 30 to 3650."))
        #expect(response.body.contains("Enter a version such as 2.3.0."))
        #expect(response.body.contains(#"name="tombstoneRetentionDays" value="10""#))
        #expect(response.body.contains(#"name="maxOpsPerPush" value="45""#))
        #expect(try server.app.core.settings.current() == ServerSettings())
        #expect(try server.integer("SELECT count(*) FROM settings_audit") == 0)
        #expect(try server.integer("SELECT count(*) FROM events") == 0)
    }

    @Test("A missing or wrong CSRF token answers 403 and changes nothing")
    func forgery() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        let admin = try server.signedIn()
        #expect(try admin.post("/admin/settings", Self.form(["maintenanceMode": "on"])).status == 403)
        #expect(try admin.post("/admin/settings", Self.form(["maintenanceMode": "on"]) + [("_csrf", "AAAA")]).status == 403)
        #expect(try server.app.core.settings.current().maintenanceMode == false)
        #expect(try server.integer("SELECT count(*) FROM settings_audit") == 0)
    }

    @Test("An emergency minimum version needs the acknowledgement, then shows on the dashboard")
    func emergencyMinimum() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        let admin = try server.signedIn()
        let page = try admin.get("/admin/settings").body
        #expect(page.contains("cannot reach the server until the app is updated"))
        let unconfirmed = try admin.submit("/admin/settings", from: "/admin/settings", Self.form(["hardMinimumAppVersion": "1.9.0"]))
        #expect(unconfirmed.status == 422 && unconfirmed.body.contains("Tick this box to confirm that devices below 1.9.0 stop syncing."))
        #expect(try server.app.core.settings.current().hardMinimumAppVersion == nil)
        let confirmed = try admin.submit(
            "/admin/settings", from: "/admin/settings",
            Self.form(["hardMinimumAppVersion": "1.9.0", "acknowledgeHardMinimum": "on", "maintenanceMode": "on", "confirmPreview": "yes"]))
        #expect(confirmed.status == 303)
        #expect(try server.app.core.settings.current().hardMinimumAppVersion == "1.9.0")
        let dashboard = try admin.get("/admin").body
        #expect(dashboard.contains("Apps below 1.9.0 are refused."))
        #expect(dashboard.contains("Maintenance mode is on."))
    }
}
