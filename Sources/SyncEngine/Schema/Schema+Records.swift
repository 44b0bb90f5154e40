import SyncProtocol

extension Schema {
    /// A stored record brought to the current schema version by its collection's declared
    /// migration steps — the steps rule 5 applies to ops on accept — or nil when it needs none:
    /// it is current already, deleted (a deletion keeps its payload only for its scope keys), of
    /// a collection the schema no longer has, or newer than the schema.
    ///
    /// A renamed or translated field keeps its field metadata (the change that set it still
    /// did); a field a default adds has none until the change that writes the record stamps it
    /// (`Workspace.commit`). Steps older than `oldestSupportedVersion` still apply: that bound
    /// is about what devices may send, not about what the server keeps.
    ///
    /// ```swift
    /// let record = try tx.lockRecords([key])[0]   // jobs at version 1, status "started"
    /// schema.upgraded(record)?.payload["status"]  // "in_progress", schemaVersion 3
    /// ```
    public func upgraded(_ record: StoredRecord) -> StoredRecord? {
        guard !record.isDeleted, record.schemaVersion < version, let collection = collections[record.collection],
            let steps = steps(of: collection, from: record.schemaVersion)
        else { return nil }
        var fields: [String: StoredField] = [:]
        for name in Set(record.payload.keys).union(record.fieldMeta.keys) {
            fields[name] = StoredField(value: record.payload[name], meta: record.fieldMeta[name])
        }
        for step in steps {
            step.apply(
                to: &fields, complete: true, make: { StoredField(value: $0, meta: nil) },
                map: { field, rewrite in StoredField(value: field.value.map(rewrite), meta: field.meta) })
        }
        var upgraded = record
        upgraded.payload = fields.compactMapValues(\.value)
        upgraded.fieldMeta = fields.compactMapValues(\.meta)
        upgraded.schemaVersion = version
        return upgraded
    }
}

/// One field of a stored record while it is migrated: its value (absent when cleared) and
/// the metadata of the change that last set it.
private struct StoredField {
    var value: JSONValue?
    var meta: FieldMeta?
}
