import SyncProtocol

extension Workspace {
    /// Resolves an open conflict entry from the back-office or `POST /v1/conflicts/{id}/resolve`.
    ///
    /// Whatever the choice, a new change (new sequence number) clears the record's flag:
    /// `server` keeps the values, `device` applies the device revision's differences from the
    /// server revision, `merge` applies `request.fields` (checked like op fields). On a deleted
    /// record only `server` is allowed; its change stays a `delete`.
    mutating func resolve(_ id: String, _ request: ResolveRequest, by principal: Principal) throws(SyncError) {
        guard let conflict = conflicts[id] else { throw SyncError(.notFound, "no conflict \(id)") }
        guard conflict.entry.authorId == principal.userId || principal.role.isOffice else {
            throw SyncError(.forbidden, "only the op's author, dispatchers and admins resolve this conflict")
        }
        guard conflict.entry.state == .open else { throw SyncError(.conflictAlreadyResolved, "conflict \(id) is already resolved") }
        let key = RecordKey(collection: conflict.entry.collection, recordId: conflict.entry.recordId)
        guard let current = records[key] else { throw SyncError(.recordNotFound, "\(key) does not exist") }
        // A deleted record can only keep the server's side: nothing resurrects it, but the entry must still close.
        guard !current.isDeleted || request.choice == .server else {
            throw SyncError(.recordDeleted, "\(key) was deleted; only the server choice can close this conflict")
        }
        let values = try resolutionValues(conflict.entry, request, role: principal.role)
        try checkWrite(values, to: current, by: principal)
        let seq = nextSeq()
        var record = current
        let meta = FieldMeta(seq: seq, opId: "resolve:\(id)", deviceId: principal.deviceId)
        for (name, value) in values {
            record.payload[name] = value.isNull ? nil : value
            record.fieldMeta[name] = meta
        }
        close(id, choice: request.choice, by: principal, seq: seq, record: &record)
        commit(record, before: current, seq: seq, type: current.isDeleted ? .delete : .upsert, author: principal)
    }

    /// The checks a push makes before writing (rules 4 and 7): scope before and after, the
    /// scope values written, the collection's lock and its allowed transitions. Keeping the
    /// server's values writes nothing, so only the scope before applies to it.
    private func checkWrite(_ values: [String: JSONValue], to current: StoredRecord, by principal: Principal) throws(SyncError) {
        var after = current.payload
        for (name, value) in values { after[name] = value.isNull ? nil : value }
        let problem = ScopeCheck.problem(
            author: principal, collection: current.collection, before: current.scopeKeys, after: after, written: values)
        if let problem {
            let details = problem.field.map { ["field": JSONValue.string($0)] }
            throw SyncError(.outOfScope, "\(current.collection)/\(current.recordId) \(problem.message)", details: details)
        }
        guard !values.isEmpty, let collection = schema.collections[current.collection] else { return }
        if collection.lock?.matches(current.payload) == true {
            throw SyncError(.recordLocked, "\(current.collection)/\(current.recordId) is locked")
        }
        if let violation = TransitionRule.violation(values, collection: collection, current: current) {
            throw SyncError(.transitionNotAllowed, violation.message, details: violation.details)
        }
    }

    private func resolutionValues(_ entry: ConflictEntry, _ request: ResolveRequest, role: Role) throws(SyncError) -> [String: JSONValue] {
        switch request.choice {
        case .server:
            return [:]
        case .device:
            let names = Set(entry.deviceRevision.keys).union(entry.serverRevision.keys)
            return Dictionary(
                uniqueKeysWithValues: names.filter { entry.deviceRevision[$0] != entry.serverRevision[$0] }.map {
                    ($0, entry.deviceRevision[$0] ?? .null)
                })
        case .merge:
            guard let fields = request.fields, !fields.isEmpty else { throw .validation("fields", "merge needs fields") }
            try checkMergeFields(fields, collection: entry.collection, role: role)
            return fields
        }
    }

    /// The field checks of rule 4 for values chosen by hand.
    private func checkMergeFields(_ fields: [String: JSONValue], collection name: String, role: Role) throws(SyncError) {
        guard let collection = schema.collections[name] else { throw SyncError(.unknownCollection, "unknown collection \(name)") }
        for (field, value) in fields.sorted(by: { $0.key < $1.key }) {
            guard let spec = collection.fields[field] else {
                throw SyncError(.unknownField, "\(name) has no field \(field)", details: ["field": .string(field)])
            }
            if let problem = spec.problem(with: value, path: field, allowNull: !spec.required) {
                throw SyncError(.validationFailed, "\(problem.path) \(problem.reason)", details: ["field": .string(field)])
            }
            guard StorableText.isStorable(value) else {
                throw SyncError(.validationFailed, "\(field) may not contain the character U+0000", details: ["field": .string(field)])
            }
            guard collection.canWrite(field, role: role) else {
                throw SyncError(.fieldReadOnly, "\(role.rawValue) may not write \(name).\(field)", details: ["field": .string(field)])
            }
        }
    }
}
