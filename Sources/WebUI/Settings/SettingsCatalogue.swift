import SyncEngine

/// One setting the back-office edits: its label, explanation, and how its value is read.
struct SettingField {
    enum Kind {
        /// An app version that must parse as `AppVersion`.
        case version(WritableKeyPath<ServerSettings, String>)
        /// An app version, or empty for "not set".
        case optionalVersion(WritableKeyPath<ServerSettings, String?>)
        /// A checkbox.
        case flag(WritableKeyPath<ServerSettings, Bool>)
        /// A whole number in `range`, shown with `unit`.
        case number(WritableKeyPath<ServerSettings, Int>, range: ClosedRange<Int>, unit: String)
        /// A byte count, edited in whole mebibytes within `range`.
        case mebibytes(WritableKeyPath<ServerSettings, Int>, range: ClosedRange<Int>)
    }

    /// The `ServerSettings` key, also the form field's name.
    let key: String
    let label: String
    let help: String
    let kind: Kind
    /// A caution shown with the field, for settings that can hurt people in the field.
    var warning: String?
}

/// A titled group of settings on the page.
struct SettingSection {
    let title: String
    let summary: String
    let fields: [SettingField]
}

/// Every setting the back-office edits, grouped as the page shows them.
enum SettingsCatalogue {
    /// The form field that confirms the consequences of an emergency minimum version.
    static let acknowledgement = "acknowledgeHardMinimum"

    static var sections: [SettingSection] {
        [
            SettingSection(
                title: "App versions", summary: "Which versions of the FieldSync app may sync.",
                fields: [
                    SettingField(
                        key: "minSupportedAppVersion", label: "Minimum supported version",
                        help: "Older apps keep syncing, so no work is lost, but they stop creating new records and ask for an update.",
                        kind: .version(\.minSupportedAppVersion)),
                    SettingField(
                        key: "hardMinimumAppVersion", label: "Emergency minimum version",
                        help: "Leave empty. Only for an app version that damages data.",
                        kind: .optionalVersion(\.hardMinimumAppVersion),
                        warning: "Apps below this version are refused on every sync. Reports, photos and changes still "
                            + "queued on those devices cannot reach the server until the app is updated, and are lost "
                            + "if the app is removed first."),
                ]),
            SettingSection(
                title: "Maintenance", summary: "Pause syncing while the server is being worked on.",
                fields: [
                    SettingField(
                        key: "maintenanceMode", label: "Maintenance mode",
                        help: "Devices are asked to retry later and keep their work queued. The back-office keeps working.",
                        kind: .flag(\.maintenanceMode)),
                    SettingField(
                        key: "maintenanceRetryAfterSeconds", label: "Devices retry after",
                        help: "How long devices wait before trying again during maintenance.",
                        kind: .number(\.maintenanceRetryAfterSeconds, range: ServerSettings.Limits.maintenanceRetryAfterSeconds, unit: "seconds")),
                ]),
            SettingSection(
                title: "Retention", summary: "How long the server and the devices keep things.",
                fields: [
                    SettingField(
                        key: "opResultRetentionDays", label: "Keep op results for",
                        help: "A device that resends an op within this time gets the original answer. At least 30 days.",
                        kind: .number(\.opResultRetentionDays, range: ServerSettings.Limits.opResultRetentionDays, unit: "days")),
                    SettingField(
                        key: "tombstoneRetentionDays", label: "Keep deletions for",
                        help: "At least 30 days, since devices may resume a sync from up to 30 days ago.",
                        kind: .number(\.tombstoneRetentionDays, range: ServerSettings.Limits.tombstoneRetentionDays, unit: "days")),
                    SettingField(
                        key: "uploadSessionHours", label: "Unfinished uploads expire after",
                        help: "Counted from the last chunk received. At least 72 hours, as devices are promised.",
                        kind: .number(\.uploadSessionHours, range: ServerSettings.Limits.uploadSessionHours, unit: "hours")),
                    SettingField(
                        key: "localRetentionDays", label: "Devices keep synced data for",
                        help: "Older synced records are removed from phones; unsynced work is never removed.",
                        kind: .number(\.localRetentionDays, range: ServerSettings.Limits.localRetentionDays, unit: "days")),
                ]),
            SettingSection(
                title: "Limits", summary: "Sizes that protect the server and the devices' data plans.",
                fields: [
                    SettingField(
                        key: "maxAttachmentBytes", label: "Largest attachment", help: "One photo or file.",
                        kind: .mebibytes(\.maxAttachmentBytes, range: ServerSettings.Limits.maxAttachmentMebibytes)),
                    SettingField(
                        key: "maxAttachmentBytesPerRecord", label: "Attachments per record",
                        help: "All files of one record together.",
                        kind: .mebibytes(\.maxAttachmentBytesPerRecord, range: ServerSettings.Limits.maxAttachmentMebibytesPerRecord)),
                    SettingField(
                        key: "maxOpsPerPush", label: "Ops per push", help: "Changes a device may send in one request.",
                        kind: .number(\.maxOpsPerPush, range: ServerSettings.Limits.maxOpsPerPush, unit: "ops")),
                    SettingField(
                        key: "maxPullLimit", label: "Changes per pull page",
                        help: "Devices asking for more receive this many per page.",
                        kind: .number(\.maxPullLimit, range: ServerSettings.Limits.maxPullLimit, unit: "changes")),
                ]),
            SettingSection(
                title: "Background jobs", summary: "How often the worker runs each job (any instance; one at a time).",
                fields: [
                    SettingField(
                        key: "retentionJobMinutes", label: "Retention runs every",
                        help: "Deletes what the retention windows above no longer keep.",
                        kind: .number(\.retentionJobMinutes, range: ServerSettings.Limits.jobMinutes, unit: "minutes")),
                    SettingField(
                        key: "uploadSessionsJobMinutes", label: "Sweeps run every",
                        help: "Unfinished uploads past their expiry with their chunks, abandoned request spools, and blob files no attachment uses.",
                        kind: .number(\.uploadSessionsJobMinutes, range: ServerSettings.Limits.jobMinutes, unit: "minutes")),
                    SettingField(
                        key: "liveFeedOutboxJobMinutes", label: "Live feed outbox is pruned every",
                        help: "Live events older than a day (the feed replays the last 5 minutes).",
                        kind: .number(\.liveFeedOutboxJobMinutes, range: ServerSettings.Limits.jobMinutes, unit: "minutes")),
                    SettingField(
                        key: "recordMigrationJobMinutes", label: "Stored records are upgraded every",
                        help: "Records of an older schema version, with the collections' declared migrations.",
                        kind: .number(\.recordMigrationJobMinutes, range: ServerSettings.Limits.jobMinutes, unit: "minutes")),
                ]),
        ]
    }

    /// The field with this key, if the back-office edits it.
    static func field(_ key: String) -> SettingField? {
        sections.lazy.flatMap(\.fields).first { $0.key == key }
    }
}
