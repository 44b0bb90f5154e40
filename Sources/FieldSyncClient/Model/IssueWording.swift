import SyncProtocol

/// The sentences the SDK shows for an issue: what happened to which record, in words.
enum IssueWording {
    static func sentence(for issue: SyncIssue) -> String {
        let record = "\(issue.collection)/\(issue.recordId)"
        if issue.photo != nil {
            return "The photo for \(record) could not be uploaded: " + (issue.serverMessage ?? issue.code.rawValue)
        }
        switch issue.code {
        case .fieldConflict:
            let fields = issue.conflicts.filter { $0.winner != .client }.map { conflict in
                "\(conflict.field) is \(text(conflict.serverCurrent)) on the server, you set \(text(conflict.clientNew))"
            }
            return "Conflict on \(record): " + (fields.isEmpty ? "another change came first" : fields.joined(separator: "; ")) + "."
        case .reviewRequired: return "Your edit of \(record) overlaps another change and waits for review. Nothing was overwritten."
        case .predecessorFailed: return "Not applied: an earlier edit of \(record) failed first."
        case .transitionNotAllowed: return "This status change of \(record) is not allowed from its current status on the server."
        case .recordExists: return "\(record) already exists on the server."
        case .recordDeleted: return "\(record) was deleted on the server; your edit was not applied."
        case .recordNotFound: return "\(record) does not exist on the server."
        case .recordLocked: return "\(record) is closed and can no longer be changed."
        case .outOfScope: return "You no longer have access to \(record)."
        case .occurredAtOutOfRange: return "This edit of \(record) was made too long ago to be accepted."
        case .schemaUnsupported: return "This edit of \(record) needs an updated app."
        default:
            let reason = [issue.field, issue.serverMessage].compactMap { $0 }.joined(separator: ": ")
            return "This edit of \(record) could not be accepted" + (reason.isEmpty ? " (\(issue.code))." : ": \(reason).")
        }
    }

    /// A field value as a user reads it: strings bare, nothing as "empty".
    static func text(_ value: JSONValue?) -> String {
        switch value {
        case nil, .null?: "empty"
        case .string(let string)?: string
        case let other?: String(decoding: other.canonicalData(), as: UTF8.self)
        }
    }
}
