import Foundation
import SyncEngine
import SyncProtocol

/// The assignment form: the values posted (kept for redisplay), what is wrong with them, and
/// the record fields they become.
///
/// An `assignments` record is edited in full; a job or a visit only moves (field user and team).
/// The field user is typed as a user name or id and must be an active field user; the team
/// must exist. At least one of them is needed: a record with neither would land in the office
/// user's own scope, where no device sees it.
struct AssignmentForm {
    static let maximumTitleLength = 200
    static let maximumSiteLength = 100
    static let maximumPersonLength = 100
    static let maximumTeamLength = 64

    /// Whether every field is editable (an assignment), not only where the record goes.
    let full: Bool
    var title = ""
    var siteId = ""
    var dueDate = ""
    var status = ""
    var assignee = ""
    var team = ""
    /// The record's `serverSeq` when the form was loaded, as posted.
    var base = ""
    private(set) var errors: [String: String] = [:]

    init(full: Bool) {
        self.full = full
    }

    /// The form filled with a stored record; the field user shown by name when known.
    init(_ record: AssignedRecord) {
        full = record.key.collection == AssignmentDesk.assignments
        let payload = record.payload
        title = payload["title"]?.stringValue ?? ""
        siteId = payload["siteId"]?.stringValue ?? ""
        dueDate = payload["dueDate"]?.stringValue ?? ""
        status = payload["status"]?.stringValue ?? ""
        assignee = record.assigneeName ?? record.assigneeId ?? ""
        team = record.teamId ?? ""
        base = String(record.serverSeq)
    }

    init(_ form: FormData, full: Bool) {
        self.full = full
        if full {
            title = form.trimmed("title")
            siteId = form.trimmed("siteId")
            dueDate = form.trimmed("dueDate")
            status = form.trimmed("status")
        }
        assignee = form.trimmed("assignee")
        team = form.trimmed("team")
        base = form.trimmed("baseServerSeq")
    }

    /// The posted `baseServerSeq`: nil when absent, or when it is not a change number (a form
    /// this back-office did not write).
    var baseServerSeq: Int64? {
        Int64(base).flatMap { $0 >= 0 ? $0 : nil }
    }

    /// Where people and teams are looked up.
    struct Directory {
        let user: (String) throws -> UserAccount?
        let teamExists: (String) throws -> Bool
    }

    /// The record fields the form sets (`.null` clears one), or nil with `errors` filled in.
    mutating func validated(statuses: [String], directory: Directory) throws -> [String: JSONValue]? {
        errors = [:]
        var fields: [String: JSONValue] = [:]
        if full {
            checkText(title, "title", limit: Self.maximumTitleLength, required: "Enter a title.")
            checkText(siteId, "siteId", limit: Self.maximumSiteLength, required: nil)
            if !dueDate.isEmpty, !CalendarDay.isValid(dueDate) { errors["dueDate"] = "Enter a date as YYYY-MM-DD, for example 2026-12-24." }
            if !statuses.contains(status) { errors["status"] = "Choose one of: \(statuses.joined(separator: ", "))." }
            fields = ["title": .string(title), "siteId": Self.optional(siteId), "dueDate": Self.optional(dueDate), "status": .string(status)]
        }
        let assigneeId = try checkAssignee(directory)
        try checkTeam(directory)
        if assignee.isEmpty, team.isEmpty { errors["assignee"] = "Choose a field user or a team (or both): devices see the work through them." }
        guard errors.isEmpty else { return nil }
        fields[ScopeFields.assignee] = assigneeId.map(JSONValue.string) ?? .null
        fields[ScopeFields.team] = Self.optional(team)
        return fields
    }

    /// Records a refusal of the engine for one field (a value it does not accept).
    mutating func reject(_ field: String, _ message: String) {
        errors[field] = message
    }

    private mutating func checkText(_ value: String, _ field: String, limit: Int, required: String?) {
        if let required, value.isEmpty { errors[field] = required }
        if value.count > limit { errors[field] = "Use at most \(limit) characters." }
        if value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            errors[field] = "Remove the line breaks or control characters."
        }
    }

    /// The assignee's user id; nil when the field is empty or refused.
    private mutating func checkAssignee(_ directory: Directory) throws -> String? {
        guard !assignee.isEmpty else { return nil }
        guard assignee.count <= Self.maximumPersonLength, !assignee.contains("\u{0}") else {
            errors["assignee"] = "Use at most \(Self.maximumPersonLength) characters."
            return nil
        }
        guard let user = try directory.user(assignee) else {
            errors["assignee"] = "No user is named “\(assignee)” or has that id."
            return nil
        }
        guard user.role == .field else {
            errors["assignee"] = "\(user.username) is not a field user (role: \(Formatting.roleName(user.role))); assign work to field users."
            return nil
        }
        guard !user.suspended else {
            errors["assignee"] = "\(user.username) is suspended and cannot sync; choose someone else."
            return nil
        }
        return user.id
    }

    private mutating func checkTeam(_ directory: Directory) throws {
        guard !team.isEmpty else { return }
        guard team.count <= Self.maximumTeamLength, !team.contains("\u{0}") else {
            errors["team"] = "Use at most \(Self.maximumTeamLength) characters."
            return
        }
        if try !directory.teamExists(team) { errors["team"] = "There is no team “\(team)”." }
    }

    private static func optional(_ text: String) -> JSONValue {
        text.isEmpty ? .null : .string(text)
    }
}
