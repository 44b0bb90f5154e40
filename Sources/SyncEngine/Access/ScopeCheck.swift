import SyncProtocol

/// The scope rule of every write a device makes, a pushed op (rule 4) or a conflict
/// resolution: the record must be visible to the author before and after the write, and the
/// `assigneeId`/`teamId` values written must lie inside the author's own scope (a field user
/// cannot hand a record to another team or user it does not see).
enum ScopeCheck {
    struct Problem: Equatable {
        var message: String
        /// The scope field whose value is out of scope, when one is.
        var field: String?
    }

    /// Why the write is out of scope; nil when it is inside.
    /// - Parameters:
    ///   - before: the record's scope keys before the write; nil for a new record.
    ///   - after: the record's payload after the write; nil for a delete.
    ///   - written: the values the write sets.
    static func problem(
        author: Principal, collection: String, before: [ScopeKey]?, after: [String: JSONValue]?, written: [String: JSONValue]
    ) -> Problem? {
        guard author.visibleScopeKeys != nil else { return nil }
        if let before, !author.canSee(before, in: collection) { return Problem(message: "is outside your scope") }
        for (field, key) in [(ScopeFields.assignee, ScopeKey.user), (ScopeFields.team, ScopeKey.team)] {
            guard let value = written[field]?.stringValue, author.foreignScopeKey(among: [key(value)]) != nil else { continue }
            return Problem(message: "may not get \(field) \(value): it is outside your scope", field: field)
        }
        if let after, !author.canSee(ScopeKey.keys(of: after), in: collection) { return Problem(message: "is outside your scope") }
        return nil
    }
}
