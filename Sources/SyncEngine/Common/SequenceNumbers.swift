/// Stand-in sequence numbers used while a transaction decides, before it reserves real ones.
///
/// Decisions need sequence numbers (results, field metadata, tombstones) before the counter
/// lock is taken, and the lock must be taken last (ARCHITECTURE.md). Change `i` of the
/// transaction is numbered `base + i`, above any real number, so "newer than" comparisons stay
/// right; ``finalize(first:)`` maps it to `first + i` once ``SyncTransaction/reserveSequence(count:)`` answered.
struct ProvisionalSequence {
    static let base: Int64 = 1 << 62

    private(set) var count = 0

    /// The stand-in number of the next change.
    mutating func next() -> Int64 {
        defer { count += 1 }
        return Self.base + Int64(count)
    }

    /// A mapping from stand-in to real numbers, given the first reserved number (`nil`: nothing was reserved).
    static func finalize(first: Int64?) -> SequenceMap {
        guard let first else { return SequenceMap { $0 } }
        return SequenceMap { seq in seq >= base ? first + (seq - base) : seq }
    }
}

/// Rewrites stand-in sequence numbers into real ones.
struct SequenceMap {
    let map: (Int64) -> Int64

    func callAsFunction(_ seq: Int64) -> Int64 { map(seq) }

    func callAsFunction(_ seq: Int64?) -> Int64? { seq.map(map) }
}

extension SyncTransaction {
    /// The end of every engine transaction: the store may encode `draft` ahead
    /// (``SyncTransaction/prepare(_:)``), then the counter lock is taken and `changes` numbers
    /// reserved (when there are any, or `lockAnyway`), and `draft` is written with them.
    ///
    /// - Returns: the map from stand-in to real numbers, the first reserved number (nil when no
    ///   lock was taken) and what was written.
    func number(_ draft: WriteSet, changes: Int, lockAnyway: Bool = false) throws -> (map: SequenceMap, first: Int64?, writes: WriteSet) {
        guard !draft.isEmpty else { return (SequenceMap { $0 }, nil, draft) }
        prepare(draft)
        let first = changes > 0 || lockAnyway ? try reserveSequence(count: changes) : nil
        let map = ProvisionalSequence.finalize(first: first)
        let writes = draft.renumbered(map)
        try write(writes)
        return (map, first, writes)
    }
}
