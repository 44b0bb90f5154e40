import Foundation
import SyncEngine
import Templating

/// The step between "Save settings" and the save, for retention and version changes: what
/// the change does to the live data, with a form that posts the same values again, confirmed.
struct SettingsPreviewPage {
    /// The form field that says the admin saw the preview and confirms.
    static let confirmation = "confirmPreview"

    let preview: SettingsPreview
    let current: ServerSettings
    let form: SettingsForm
    let timeZone: TimeZone

    /// Whether saving `updated` over `current` needs the preview step first.
    static func needed(from current: ServerSettings, to updated: ServerSettings) -> Bool {
        retentionChanged(current, updated) || current.minSupportedAppVersion != updated.minSupportedAppVersion
            || current.hardMinimumAppVersion != updated.hardMinimumAppVersion
    }

    private static func retentionChanged(_ current: ServerSettings, _ updated: ServerSettings) -> Bool {
        current.opResultRetentionDays != updated.opResultRetentionDays || current.tombstoneRetentionDays != updated.tombstoneRetentionDays
    }

    func page(session: WebSession) -> Page {
        let updated = preview.settings
        let retentionChanged = Self.retentionChanged(current, updated)
        var content: [String: TemplateValue] = [
            "changes": .array(changes()), "hidden": .array(hidden()), "retentionChanged": .bool(retentionChanged),
            "deletions": .array(deletions()), "redownload": .dictionary(group(preview.fullRedownload)),
            "tombstoneDays": .int(updated.tombstoneRetentionDays),
        ]
        if current.minSupportedAppVersion != updated.minSupportedAppVersion {
            content["minimum"] = .dictionary(group(preview.belowMinimum, version: updated.minSupportedAppVersion))
        }
        if let hard = updated.hardMinimumAppVersion, hard != current.hardMinimumAppVersion {
            var refused = group(preview.refused, version: hard)
            let stranded = preview.refused
            if stranded.unfinishedWork > 0 {
                refused["stranded"] = .string(
                    "These devices still hold work the server is waiting for: \(Formatting.counted(stranded.deferredOps, "deferred op")) "
                        + "and \(Formatting.counted(stranded.incompleteUploads, "unfinished upload")). It cannot reach the server until "
                        + "each app is updated, and is lost if an app is removed first.")
            }
            content["emergency"] = .dictionary(refused)
        }
        return Page("pages/settings-preview", title: "Check before saving", area: .settings, session: session, content: content)
    }

    /// The settings that change, as "label: old → new".
    private func changes() -> [TemplateValue] {
        SettingsCatalogue.sections.flatMap(\.fields).compactMap { field in
            let before = SettingsForm.text(of: field.kind, in: current)
            let after = SettingsForm.text(of: field.kind, in: preview.settings)
            guard before != after else { return nil }
            return [
                "label": .string(field.label), "from": .string(before.isEmpty ? "not set" : before), "to": .string(after.isEmpty ? "not set" : after),
            ]
        }
    }

    /// The submitted form again, confirmed: unchecked boxes are left out, as a browser does.
    private func hidden() -> [TemplateValue] {
        var fields = SettingsCatalogue.sections.flatMap(\.fields).compactMap { field -> (String, String)? in
            let value = form.text[field.key] ?? ""
            if case .flag = field.kind, value.isEmpty { return nil }
            return (field.key, value)
        }
        if form.acknowledged { fields.append((SettingsCatalogue.acknowledgement, "on")) }
        fields.append((Self.confirmation, "yes"))
        return fields.map { ["name": .string($0.0), "value": .string($0.1)] }
    }

    private func deletions() -> [TemplateValue] {
        let labels: [(RetentionRule, String)] = [
            (.opResults, "Op results (journal entries)"), (.tombstones, "Deletions (tombstones)"), (.scopeExits, "Scope exits"),
            (.idempotencyKeys, "Stored order answers"), (.webSessions, "Ended back-office sessions"), (.deviceTokens, "Long-expired device tokens"),
        ]
        return labels.filter { preview.deletions.counts[$0.0] != nil }.map { rule, label in
            ["rule": .string(rule.rawValue), "label": .string(label), "count": .string(Formatting.count(preview.deletions[rule]))]
        }
    }

    private func group(_ group: DeviceGroup, version: String? = nil) -> [String: TemplateValue] {
        var values: [String: TemplateValue] = [
            "count": .int(group.count), "countText": .string(Formatting.counted(group.count, "device")),
            "usersText": .string(Formatting.counted(group.users, "user")), "any": .bool(group.count > 0),
            "more": .bool(group.count > group.devices.count), "listed": .int(group.devices.count),
            "devices": .array(group.devices.map(device)),
        ]
        if let version { values["version"] = .string(version) }
        return values
    }

    private func device(_ device: DeviceStanding) -> TemplateValue {
        [
            "deviceId": .string(device.deviceId), "username": .string(device.username ?? "Unknown user"),
            "team": .string(device.teamId ?? "—"), "appVersion": .string(device.appVersion ?? "unknown"),
            "lastSync": .string(device.lastSyncAt.map { Formatting.dateTime($0, in: timeZone) } ?? "never"),
            "deferredOps": .int(device.deferredOps), "incompleteUploads": .int(device.incompleteUploads),
        ]
    }
}
