import Foundation
import SyncEngine
import Testing

@testable import WebUI

@Suite("The settings form")
struct SettingsFormTests {
    /// The form as the page shows `settings`, posted with `changes` typed over it (an
    /// empty change leaves the field out, as browsers do with unticked checkboxes).
    private func submit(_ changes: [String: String], over settings: ServerSettings = ServerSettings()) -> SettingsForm {
        var fields = SettingsForm(showing: settings).text
        for (key, value) in changes { fields[key] = value }
        fields = fields.filter { !$0.value.isEmpty }
        let encoded = fields.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }
        return SettingsForm(submitted: FormData(encoded: encoded.joined(separator: "&")))
    }

    @Test("Posting the form unchanged yields the same settings")
    func unchanged() {
        var form = submit([:])
        #expect(form.validated(over: ServerSettings()) == ServerSettings())
        #expect(form.errors.isEmpty)
    }

    @Test("Valid changes are parsed, mebibytes become bytes, and an unticked checkbox is off")
    func parsing() {
        var current = ServerSettings()
        current.maintenanceMode = true
        var form = submit(
            ["minSupportedAppVersion": "2.4.1", "maxAttachmentBytes": "20", "localRetentionDays": "7", "maintenanceMode": ""], over: current)
        let updated = form.validated(over: current)
        #expect(updated?.minSupportedAppVersion == "2.4.1")
        #expect(updated?.maxAttachmentBytes == 20 * 1_048_576)
        #expect(updated?.localRetentionDays == 7)
        #expect(updated?.maintenanceMode == false)
    }

    @Test(
        "Each invalid field gets its own message and the typed text is kept",
        arguments: [
            ("minSupportedAppVersion", "two"), ("hardMinimumAppVersion", "1.x"), ("opResultRetentionDays", "29"),
            ("tombstoneRetentionDays", "10"), ("uploadSessionHours", "0"), ("localRetentionDays", "abc"),
            ("maxAttachmentBytes", "0"), ("maxOpsPerPush", "5000"), ("maxPullLimit", "501"), ("maintenanceRetryAfterSeconds", "-1"),
            ("uploadSessionHours", "71"), ("retentionJobMinutes", "0"), ("liveFeedOutboxJobMinutes", "10081"),
        ])
    func invalidField(key: String, input: String) {
        var form = submit([key: input])
        #expect(form.validated(over: ServerSettings()) == nil)
        #expect(form.errors.keys.sorted() == [key])
        #expect(form.text[key] == input)
    }

    @Test("Retention windows may not go below 30 days, since cursors live 30 days")
    func retentionFloor() {
        var form = submit(["tombstoneRetentionDays": "29", "opResultRetentionDays": "30"])
        #expect(form.validated(over: ServerSettings()) == nil)
        #expect(form.errors["tombstoneRetentionDays"] == "Enter a whole number of days from 30 to 3650.")
    }

    @Test("Unfinished uploads live at least the 72 hours the protocol promises")
    func uploadSessionFloor() {
        var below = submit(["uploadSessionHours": "71"])
        #expect(below.validated(over: ServerSettings()) == nil)
        #expect(below.errors["uploadSessionHours"] == "Enter a whole number of hours from 72 to 720.")
        var stored = ServerSettings()
        stored.uploadSessionHours = 5
        #expect(stored.effectiveUploadSessionHours == 72, "a value stored before the floor counts as the floor")
    }

    @Test("The emergency minimum may not exceed the supported minimum, and needs the acknowledgement")
    func emergencyMinimum() {
        var above = submit(["hardMinimumAppVersion": "2.1.0"])
        #expect(above.validated(over: ServerSettings()) == nil)
        #expect(above.errors["hardMinimumAppVersion"]?.contains("2.0.0") == true)

        var unacknowledged = submit(["hardMinimumAppVersion": "1.9.0"])
        #expect(unacknowledged.validated(over: ServerSettings()) == nil)
        #expect(unacknowledged.errors.keys.sorted() == [SettingsCatalogue.acknowledgement])

        var acknowledged = submit(["hardMinimumAppVersion": "1.9.0", SettingsCatalogue.acknowledgement: "on"])
        #expect(acknowledged.validated(over: ServerSettings())?.hardMinimumAppVersion == "1.9.0")

        var current = ServerSettings()
        current.hardMinimumAppVersion = "1.9.0"
        var kept = submit([:], over: current)
        #expect(kept.validated(over: current) == current, "an unchanged emergency minimum needs no new acknowledgement")
    }

    @Test("The per-record attachment total may not be below the single-attachment limit")
    func attachmentTotals() {
        var form = submit(["maxAttachmentBytes": "100", "maxAttachmentBytesPerRecord": "50"])
        #expect(form.validated(over: ServerSettings()) == nil)
        #expect(form.errors.keys.sorted() == ["maxAttachmentBytesPerRecord"])
    }

    @Test("A stored size that is not a whole MiB survives an unchanged save")
    func oddByteCounts() {
        var current = ServerSettings()
        current.maxAttachmentBytes = 52_428_801
        var form = submit([:], over: current)
        #expect(form.text["maxAttachmentBytes"] == "50.00")
        #expect(form.validated(over: current)?.maxAttachmentBytes == 52_428_801)
    }

    @Test("Audit values read as people say them")
    func display() {
        #expect(SettingsForm.display(key: "hardMinimumAppVersion", json: "null") == "not set")
        #expect(SettingsForm.display(key: "minSupportedAppVersion", json: "\"2.4.0\"") == "2.4.0")
        #expect(SettingsForm.display(key: "maintenanceMode", json: "true") == "On")
        #expect(SettingsForm.display(key: "maxAttachmentBytes", json: "52428800") == "50 MiB")
        #expect(SettingsForm.display(key: "tombstoneRetentionDays", json: "60") == "60 days")
        #expect(SettingsForm.display(key: "someFutureKey", json: "[1]") == "[1]")
    }
}
