public import SyncProtocol

extension ServerChangeService {
    /// Resolves an open conflict entry (`server`, `device` or `merge`).
    ///
    /// - Returns: the resolved entry.
    /// - Throws: `NOT_FOUND`, `FORBIDDEN` (not the author, dispatcher or admin),
    ///   `CONFLICT_ALREADY_RESOLVED`, `RECORD_DELETED` (device or merge on a deleted record),
    ///   and for `merge` the field codes of rule 4.
    public func resolveConflict(
        _ id: String, _ request: ResolveRequest, by principal: Principal, in transaction: (any SyncTransaction)? = nil
    ) throws -> ConflictEntry {
        let writes = try transact(conflictIds: [id], keys: [], in: transaction) { workspace in
            try workspace.resolve(id, request, by: principal)
        }
        guard let entry = writes.resolvedConflicts.first(where: { $0.id == id }) else {
            throw SyncError(.internalError, "conflict \(id) was not resolved")
        }
        return entry
    }
}
