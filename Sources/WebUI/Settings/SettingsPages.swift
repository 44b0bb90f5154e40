import Foundation
import HTTP
public import SyncEngine
import SyncProtocol
import Templating

/// `GET /admin/settings` and `POST /admin/settings`: version gating, maintenance,
/// retention and size limits, with the audit trail of past changes.
///
/// A save stores the changed keys, their audit rows and a `settings.changed` event in
/// one transaction (`SettingsStore.update`).
struct SettingsPages {
    let settings: any SettingsStore
    let previewer: SettingsPreviewer
    let renderer: PageRenderer
    let configuration: WebConfiguration

    func register(on routes: BackOfficePages) {
        routes.add(.GET, Area.settings.path, area: .settings, handler: show)
        routes.add(.POST, Area.settings.path, area: .settings, handler: save)
    }

    @Sendable func show(_ context: WebContext) throws -> Response {
        let notice: Notice? =
            switch context.request.query["notice"] {
            case "saved": Notice(kind: .success, text: "Settings saved. Devices pick them up on their next sync.")
            case "unchanged": Notice(kind: .info, text: "Nothing to save: every setting already had these values.")
            default: nil
            }
        return try page(SettingsForm(showing: try settings.current()), context: context, notice: notice)
    }

    @Sendable func save(_ context: WebContext) throws -> Response {
        var form = SettingsForm(submitted: context.form)
        let current = try settings.current()
        guard let updated = form.validated(over: current) else {
            let count = form.errors.count
            let notice = Notice(kind: .error, text: "\(count) setting\(count == 1 ? " needs" : "s need") your attention. Nothing was saved.")
            return try page(form, context: context, notice: notice, status: 422)
        }
        // Retention and version changes are shown against the live data first; the preview's
        // form posts the same values back, confirmed.
        if SettingsPreviewPage.needed(from: current, to: updated), !context.form.isChecked(SettingsPreviewPage.confirmation) {
            let preview = SettingsPreviewPage(
                preview: try previewer.preview(updated), current: current, form: form, timeZone: configuration.timeZone)
            return try renderer.render(preview.page(session: context.session))
        }
        let changes = try settings.update(updated, by: context.session.user.id)
        return .redirect(to: Area.settings.path + "?notice=" + (changes.isEmpty ? "unchanged" : "saved"))
    }

    private func page(_ form: SettingsForm, context: WebContext, notice: Notice?, status: Int = 200) throws -> Response {
        let audit = try settings.auditTrail(limit: 50)
        let content: [String: TemplateValue] = [
            "sections": .array(SettingsCatalogue.sections.map { section($0, form) }),
            "audit": .array(audit.map(auditRow)), "hasAudit": .bool(!audit.isEmpty),
        ]
        var page = Page("pages/settings", title: "Settings", area: .settings, session: context.session, content: content, status: status)
        page.notice = notice
        return try renderer.render(page)
    }

    private func section(_ section: SettingSection, _ form: SettingsForm) -> TemplateValue {
        [
            "title": .string(section.title), "summary": .string(section.summary),
            "fields": .array(section.fields.map { field($0, form) }),
        ]
    }

    private func field(_ field: SettingField, _ form: SettingsForm) -> TemplateValue {
        var values: [String: TemplateValue] = [
            "key": .string(field.key), "label": .string(field.label), "help": .string(field.help),
            "value": .string(form.text[field.key] ?? ""), "error": form.errors[field.key].map(TemplateValue.string) ?? .null,
        ]
        if let warning = field.warning {
            // A field with a warning is confirmed with a checkbox next to the warning.
            values["warning"] = [
                "text": .string(warning), "name": .string(SettingsCatalogue.acknowledgement), "checked": .bool(form.acknowledged),
                "error": form.errors[SettingsCatalogue.acknowledgement].map(TemplateValue.string) ?? .null,
            ]
        }
        switch field.kind {
        case .version, .optionalVersion:
            values["text"] = true
        case .flag:
            values["checkbox"] = true
            values["checked"] = .bool(form.text[field.key] == "on")
        case .number(_, let range, let unit):
            values["number"] = ["min": .int(range.lowerBound), "max": .int(range.upperBound), "unit": .string(unit)]
        case .mebibytes(_, let range):
            values["number"] = ["min": .int(range.lowerBound), "max": .int(range.upperBound), "unit": "MiB"]
        }
        return .dictionary(values)
    }

    private func auditRow(_ entry: SettingAuditEntry) -> TemplateValue {
        [
            "when": .string(Formatting.dateTime(entry.changedAt, in: configuration.timeZone)),
            "who": .string(entry.username ?? "Command line"),
            "setting": .string(SettingsCatalogue.field(entry.key)?.label ?? entry.key),
            "from": .string(SettingsForm.display(key: entry.key, json: entry.old)),
            "to": .string(SettingsForm.display(key: entry.key, json: entry.new)),
        ]
    }
}

extension Area {
    /// `/admin/settings`: version gating, maintenance, retention and limits.
    public static let settings = Area(path: "/admin/settings", title: "Settings", access: [.admin: .manage])
}

extension BackOfficePages {
    /// Adds the settings page and its audited save, previewed for retention and version changes.
    public func addSettingsPages(settings: any SettingsStore, previewer: SettingsPreviewer) {
        SettingsPages(settings: settings, previewer: previewer, renderer: renderer, configuration: configuration).register(on: self)
    }
}
