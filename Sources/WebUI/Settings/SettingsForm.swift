import Foundation
import SyncEngine
import SyncProtocol

/// The settings form as text: what the inputs show, and what was posted with the
/// errors found in it, so an invalid submission comes back exactly as typed.
///
/// ```swift
/// var form = SettingsForm(submitted: FormData(request))
/// if let updated = form.validated(over: current) { try settings.update(updated, by: user.id) }
/// else { /* render form.text and form.errors */ }
/// ```
struct SettingsForm {
    /// Input text per setting key ("on" or "" for checkboxes).
    private(set) var text: [String: String] = [:]
    /// A message per setting key (or `SettingsCatalogue.acknowledgement`).
    private(set) var errors: [String: String] = [:]
    private(set) var acknowledged = false

    /// The form showing `settings`.
    init(showing settings: ServerSettings) {
        for field in SettingsCatalogue.sections.flatMap(\.fields) {
            text[field.key] = Self.text(of: field.kind, in: settings)
        }
    }

    /// The form as posted.
    init(submitted form: FormData) {
        for field in SettingsCatalogue.sections.flatMap(\.fields) {
            if case .flag = field.kind {
                text[field.key] = form.isChecked(field.key) ? "on" : ""
            } else {
                text[field.key] = form.trimmed(field.key)
            }
        }
        acknowledged = form.isChecked(SettingsCatalogue.acknowledgement)
    }

    /// The settings the form asks for, or nil with `errors` filled in.
    ///
    /// Each field is checked on its own, then against the others: the emergency minimum
    /// may not exceed the supported minimum, the per-record attachment total may not be
    /// below the single-attachment limit, and setting a new emergency minimum needs the
    /// acknowledgement box ticked.
    mutating func validated(over current: ServerSettings) -> ServerSettings? {
        var settings = current
        errors = [:]
        for field in SettingsCatalogue.sections.flatMap(\.fields) {
            if let problem = apply(field, text[field.key] ?? "", to: &settings, current: current) {
                errors[field.key] = problem
            }
        }
        checkRelations(settings, current: current)
        return errors.isEmpty ? settings : nil
    }

    // MARK: - Fields

    /// Parses one field into `settings`; returns what is wrong with it, if anything.
    private func apply(_ field: SettingField, _ input: String, to settings: inout ServerSettings, current: ServerSettings) -> String? {
        switch field.kind {
        case .version(let path):
            guard AppVersion(input) != nil else { return "Enter a version such as 2.3.0." }
            settings[keyPath: path] = input
        case .optionalVersion(let path):
            guard input.isEmpty || AppVersion(input) != nil else { return "Enter a version such as 2.3.0, or leave it empty." }
            settings[keyPath: path] = input.isEmpty ? nil : input
        case .flag(let path):
            settings[keyPath: path] = input == "on"
        case .number(let path, let range, let unit):
            guard let value = Int(input), range.contains(value) else { return Self.rangeMessage(range, unit) }
            settings[keyPath: path] = value
        case .mebibytes(let path, let range):
            // An unchanged field keeps the stored byte count, even one that is not a whole MiB.
            if input == Self.text(of: field.kind, in: current) { return nil }
            guard let value = Int(input), range.contains(value) else { return Self.rangeMessage(range, "MiB") }
            settings[keyPath: path] = value * ServerSettings.Limits.mebibyte
        }
        return nil
    }

    private mutating func checkRelations(_ settings: ServerSettings, current: ServerSettings) {
        if errors["minSupportedAppVersion"] == nil, errors["hardMinimumAppVersion"] == nil,
            let hard = settings.hardMinimumAppVersion.flatMap(AppVersion.init), let supported = AppVersion(settings.minSupportedAppVersion),
            supported < hard
        {
            errors["hardMinimumAppVersion"] = "Must not be above the minimum supported version (\(settings.minSupportedAppVersion))."
        }
        if errors["maxAttachmentBytes"] == nil, errors["maxAttachmentBytesPerRecord"] == nil,
            settings.maxAttachmentBytesPerRecord < settings.maxAttachmentBytes
        {
            errors["maxAttachmentBytesPerRecord"] = "Must be at least the largest attachment (\(Formatting.bytes(settings.maxAttachmentBytes)))."
        }
        if let hard = settings.hardMinimumAppVersion, hard != current.hardMinimumAppVersion, !acknowledged,
            errors["hardMinimumAppVersion"] == nil
        {
            errors[SettingsCatalogue.acknowledgement] = "Tick this box to confirm that devices below \(hard) stop syncing."
        }
    }

    private static func rangeMessage(_ range: ClosedRange<Int>, _ unit: String) -> String {
        "Enter a whole number of \(unit) from \(range.lowerBound) to \(range.upperBound)."
    }

    // MARK: - Display

    /// The input text of a setting's current value.
    static func text(of kind: SettingField.Kind, in settings: ServerSettings) -> String {
        switch kind {
        case .version(let path): settings[keyPath: path]
        case .optionalVersion(let path): settings[keyPath: path] ?? ""
        case .flag(let path): settings[keyPath: path] ? "on" : ""
        case .number(let path, _, _): String(settings[keyPath: path])
        case .mebibytes(let path, _): mebibytes(settings[keyPath: path])
        }
    }

    /// Whole mebibytes as an integer; anything else with two decimals.
    private static func mebibytes(_ bytes: Int) -> String {
        let unit = ServerSettings.Limits.mebibyte
        return bytes % unit == 0 ? String(bytes / unit) : String(format: "%.2f", Double(bytes) / Double(unit))
    }

    /// A stored JSON value of `key` as people read it in the audit trail: "not set",
    /// "On", "50 MiB", "30 days", "2.3.0".
    static func display(key: String, json: String) -> String {
        let value = try? JSONSerialization.jsonObject(with: Data(json.utf8), options: .fragmentsAllowed)
        switch (value, SettingsCatalogue.field(key)?.kind) {
        case (nil, _), (is NSNull, _): return "not set"
        case (let number as NSNumber, .flag?): return number.boolValue ? "On" : "Off"
        case (let number as NSNumber, .mebibytes?): return Formatting.bytes(number.intValue)
        case (let number as NSNumber, .number(_, _, let unit)?): return "\(number.intValue) \(unit)"
        case (let text as String, _): return text
        default: return json
        }
    }
}
