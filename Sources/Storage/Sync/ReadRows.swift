import SyncEngine

/// The op log rows and records a sync transaction read under its locks: the rows that exist
/// among those it writes. Every write of either is preceded by that read in the same
/// transaction (``SyncTransaction/lockDevice(_:readingOps:)``, ``SyncTransaction/lockRecords(_:)``),
/// and the locks keep other writers from adding or removing such rows until commit.
struct ReadRows {
    private var ops: Set<OpKey> = []
    private var records: Set<RecordKey> = []

    private struct OpKey: Hashable {
        let deviceId: String
        let opId: String
    }

    mutating func noteOps(_ entries: some Sequence<(deviceId: String, opId: String)>) {
        for entry in entries { ops.insert(OpKey(deviceId: entry.deviceId, opId: entry.opId)) }
    }

    mutating func noteRecords(_ stored: [StoredRecord]) {
        records.formUnion(stored.map(\.key))
    }

    /// `entries` split by whether their rows were read, each part in the given order.
    func split(_ entries: [OpLogEntry]) -> (new: [OpLogEntry], stored: [OpLogEntry]) {
        split(entries) { ops.contains(OpKey(deviceId: $0.deviceId, opId: $0.opId)) }
    }

    /// `records` split by whether their rows were read, each part in the given order.
    func split(_ records: [StoredRecord]) -> (new: [StoredRecord], stored: [StoredRecord]) {
        split(records) { self.records.contains($0.key) }
    }

    private func split<Row>(_ rows: [Row], isStored: (Row) -> Bool) -> (new: [Row], stored: [Row]) {
        var parts: (new: [Row], stored: [Row]) = ([], [])
        for row in rows {
            if isStored(row) { parts.stored.append(row) } else { parts.new.append(row) }
        }
        return parts
    }
}
