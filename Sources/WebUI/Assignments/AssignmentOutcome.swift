import SyncEngine
import SyncProtocol

/// A save the engine did not apply in full, told to the dispatcher: the words, the HTTP status
/// of the page that shows them, and the form field they belong next to, if one.
struct AssignmentOutcome {
    let text: String
    let status: Int
    let field: String?

    /// Form fields by record field.
    static let formFields = [
        "title": "title", "siteId": "siteId", "dueDate": "dueDate", "status": "status",
        ScopeFields.assignee: "assignee", ScopeFields.team: "team",
    ]
    static let labels = [
        "title": "Title", "siteId": "Site", "dueDate": "Due date", "status": "Status", ScopeFields.assignee: "Field user",
        ScopeFields.team: "Team",
    ]

    init(_ result: OpResult, isCreate: Bool) {
        switch result.code {
        case .fieldConflict?:
            (text, status, field) = (Self.conflictText(result), 409, nil)
        case .validationFailed?, .unknownField?, .fieldReadOnly?:
            let named = result.details?["field"]?.stringValue.flatMap { Self.formFields[$0] }
            (text, status, field) = ((result.message ?? "This value is not accepted.") + " Nothing was changed.", 422, named)
        case .recordDeleted?:
            (text, status, field) = ("This record was deleted after you opened the form, so nothing was changed.", 409, nil)
        case .recordNotFound?:
            (text, status, field) = ("This record no longer exists on the server, so nothing was changed.", 409, nil)
        case .recordLocked?:
            (text, status, field) = ("This record is closed for changes (a finished visit stays where it is), so nothing was changed.", 409, nil)
        case .transitionNotAllowed?:
            (text, status, field) = ("That status change is not allowed from the record's current status, so nothing was changed.", 409, "status")
        case .recordExists? where isCreate:
            (text, status, field) = ("A record with the new assignment's id already exists, so nothing was changed. Save again.", 409, nil)
        default:
            let reason = OpWording.explanation(result.code) ?? "The server did not apply the change."
            (text, status, field) = ("\(reason) Nothing was changed.", result.status == .retry ? 503 : 409, nil)
        }
    }

    /// "Someone changed this record after you opened the form: Status is now “done” …".
    private static func conflictText(_ result: OpResult) -> String {
        let kept = (result.conflicts ?? []).map { conflict in
            let label = labels[conflict.field] ?? conflict.field
            return "\(label) is now “\(ValueText.text(conflict.serverCurrent))” (you entered “\(ValueText.text(conflict.clientNew))”)"
        }
        var text = "Someone changed this record after you opened the form, so those changes of yours were not saved: "
            + kept.joined(separator: "; ") + "."
        let applied = (result.appliedFields ?? []).map { labels[$0] ?? $0 }
        if !applied.isEmpty { text += " Your other changes were saved (\(applied.sorted().joined(separator: ", ")))." }
        return text + " The form shows your values: save again to replace theirs, or open the record again to start from theirs."
    }
}
