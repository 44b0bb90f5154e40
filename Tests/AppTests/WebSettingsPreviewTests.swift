import App
import Foundation
import Postgres
import Storage
import SyncEngine
import Testing

/// The preview step of the settings page: retention and version changes are shown against the
/// live data before they are saved.
@Suite("Settings preview page, over HTTP", .serialized)
struct WebSettingsPreviewTests {
    /// The hidden fields of the preview's confirm form, as a browser would post them back.
    static func hiddenFields(_ body: String) -> [(String, String)] {
        let form = body.components(separatedBy: #"id="preview-confirm""#).last ?? ""
        let pattern = try! NSRegularExpression(pattern: #"<input type="hidden" name="([^"]+)" value="([^"]*)">"#)
        let range = NSRange(form.startIndex..., in: form)
        return pattern.matches(in: form, range: range).compactMap { match in
            guard let name = Range(match.range(at: 1), in: form), let value = Range(match.range(at: 2), in: form) else { return nil }
            return (String(form[name]), String(form[value]))
        }.filter { $0.0 != "_csrf" }
    }

    @Test("A retention change shows the next run's deletions and stale devices; nothing is saved until confirmed, then audited")
    func retention() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        try SettingsPreviewScenario.load(server.database)
        let admin = try server.signedIn()
        let submitted = WebSettingsTests.form(["opResultRetentionDays": "35", "tombstoneRetentionDays": "45"])
        let preview = try admin.submit("/admin/settings", from: "/admin/settings", submitted)
        #expect(preview.status == 200 && preview.body.contains("Check before saving"))
        for (rule, count) in SettingsPreviewScenario.deletions where count > 0 {
            let row = WebSyncCentreTests.row(containing: #"data-rule="\#(rule)""#, in: preview.body)
            #expect(row?.contains(#"<td class="num">\#(count)</td>"#) == true, "\(rule)")
        }
        #expect(preview.body.contains("1 device of 1 user last synced more than 45 days ago"))
        let stale = try #require(WebSyncCentreTests.row(containing: "p-stale", in: preview.body))
        #expect(stale.contains("paula") && stale.contains("north"))
        #expect(try server.app.core.settings.current().tombstoneRetentionDays == 60, "nothing saved before confirming")
        #expect(try server.integer("SELECT count(*) FROM settings_audit") == 0)

        let hidden = Self.hiddenFields(preview.body)
        #expect(hidden.contains { $0 == ("confirmPreview", "yes") } && hidden.contains { $0 == ("tombstoneRetentionDays", "45") })
        #expect(try admin.post("/admin/settings", hidden).status == 403, "the confirm form needs its CSRF token")
        let saved = try admin.submit("/admin/settings", from: "/admin/settings", hidden)
        #expect(saved.status == 303 && saved.location == "/admin/settings?notice=saved")
        let current = try server.app.core.settings.current()
        #expect(current.opResultRetentionDays == 35 && current.tombstoneRetentionDays == 45)
        let audit = try server.app.core.settings.auditTrail(limit: 10)
        #expect(audit.map(\.key).sorted() == ["opResultRetentionDays", "tombstoneRetentionDays"] && audit.allSatisfy { $0.username == "admin" })
    }

    @Test("An emergency minimum lists the devices it refuses with their unfinished work, under a stronger warning")
    func emergencyMinimum() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        try SettingsPreviewScenario.load(server.database)
        let admin = try server.signedIn()
        let preview = try admin.submit(
            "/admin/settings", from: "/admin/settings",
            WebSettingsTests.form(["hardMinimumAppVersion": "1.8.0", "acknowledgeHardMinimum": "on"]))
        #expect(preview.status == 200)
        #expect(preview.body.contains("Refused by the emergency minimum 1.8.0") && preview.body.contains("Work will be stuck on devices."))
        #expect(preview.body.contains("1 deferred op and 1 unfinished upload"))
        let omar = try #require(WebSyncCentreTests.row(containing: "p-old", in: preview.body))
        #expect(omar.contains("omar") && omar.contains("south") && omar.contains("1.5.0"))
        #expect(!preview.body.contains("The next retention run deletes"), "retention is not previewed when it does not change")
        #expect(try server.app.core.settings.current().hardMinimumAppVersion == nil)

        let quiet = try admin.submit("/admin/settings", from: "/admin/settings", WebSettingsTests.form(["minSupportedAppVersion": "2.5.0"]))
        #expect(quiet.body.contains("Below the minimum supported version 2.5.0") && !quiet.body.contains("Work will be stuck"))
        #expect(quiet.body.contains("stop creating new records"))
    }

    @Test("Other settings save at once, without a preview")
    func otherSettings() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        let admin = try server.signedIn()
        let response = try admin.submit("/admin/settings", from: "/admin/settings", WebSettingsTests.form(["maxOpsPerPush": "40"]))
        #expect(response.status == 303 && response.location == "/admin/settings?notice=saved")
    }
}
