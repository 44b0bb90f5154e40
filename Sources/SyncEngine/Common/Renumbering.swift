import SyncProtocol

// Each type that carries sequence numbers rewrites them through a SequenceMap; together they
// turn the stand-in numbers of a decided transaction into the reserved ones.

extension OpResult {
    func renumbered(_ map: SequenceMap) -> OpResult {
        var copy = self
        copy.serverSeq = map(serverSeq)
        copy.tombstoneSeq = map(tombstoneSeq)
        copy.conflicts = conflicts?.map { $0.renumbered(map) }
        // RECORD_EXISTS names the record's serverSeq in its details (Workspace.decide); the record
        // may be one this transaction created a moment before.
        if case .int(let seq)? = details?["serverSeq"] { copy.details?["serverSeq"] = .int(map(seq)) }
        return copy
    }
}

extension FieldConflict {
    func renumbered(_ map: SequenceMap) -> FieldConflict {
        var copy = self
        copy.serverSeq = map(serverSeq)
        return copy
    }
}

extension StoredRecord {
    func renumbered(_ map: SequenceMap) -> StoredRecord {
        var copy = self
        copy.serverSeq = map(serverSeq)
        copy.tombstoneSeq = map(tombstoneSeq)
        copy.fieldMeta = fieldMeta.mapValues { FieldMeta(seq: map($0.seq), opId: $0.opId, deviceId: $0.deviceId) }
        return copy
    }
}

extension ConflictEntry {
    func renumbered(_ map: SequenceMap) -> ConflictEntry {
        var copy = self
        copy.fields = fields.map { $0.renumbered(map) }
        copy.resolution?.serverSeq = map(resolution?.serverSeq ?? 0)
        return copy
    }
}

extension OpLogEntry {
    func renumbered(_ map: SequenceMap) -> OpLogEntry {
        var copy = self
        copy.result = result.renumbered(map)
        copy.pending?.result = copy.result
        return copy
    }
}

extension WriteSet {
    func renumbered(_ map: SequenceMap) -> WriteSet {
        var copy = self
        copy.opLog = opLog.map { $0.renumbered(map) }
        copy.records = records.map { $0.renumbered(map) }
        copy.changes = changes.map { change in
            var renumbered = change
            renumbered.seq = map(change.seq)
            return renumbered
        }
        copy.openedConflicts = openedConflicts.map { StoredConflict(entry: $0.entry.renumbered(map), scopeKeys: $0.scopeKeys) }
        copy.resolvedConflicts = resolvedConflicts.map { $0.renumbered(map) }
        copy.events = events.map { event in
            var renumbered = event
            renumbered.serverSeq = map(event.serverSeq)
            return renumbered
        }
        return copy
    }
}
