/// Stand-in sequence numbers used while a transaction decides, before it reserves real ones.
///
/// Decisions need sequence numbers (results, field metadata, tombstones) before real ones are
/// reserved, which happens once every read is done. Change `i` of the transaction is numbered
/// `base + i`, above any real number, so "newer than" comparisons stay right;
/// ``finalize(reserved:)`` maps it to the `i`th reserved number once
/// ``SyncTransaction/reserveSequence(count:)`` answered.
struct ProvisionalSequence {
    static let base: Int64 = 1 << 62

    private(set) var count = 0

    /// The stand-in number of the next change.
    mutating func next() -> Int64 {
        defer { count += 1 }
        return Self.base + Int64(count)
    }

    /// A mapping from stand-in to real numbers, given the reserved numbers in ascending order.
    static func finalize(reserved: [Int64]) -> SequenceMap {
        guard !reserved.isEmpty else { return SequenceMap { $0 } }
        return SequenceMap { seq in seq >= base && seq - base < reserved.count ? reserved[Int(seq - base)] : seq }
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
    /// (``SyncTransaction/prepare(_:)``), then `changes` numbers are reserved (when there are
    /// any) and `draft` is written with them.
    ///
    /// - Returns: the map from stand-in to real numbers, the highest reserved number (nil when
    ///   none was) and what was written.
    func number(_ draft: WriteSet, changes: Int) throws -> (map: SequenceMap, last: Int64?, writes: WriteSet) {
        guard !draft.isEmpty else { return (SequenceMap { $0 }, nil, draft) }
        prepare(draft)
        let reserved = changes > 0 ? try reserveSequence(count: changes) : []
        let map = ProvisionalSequence.finalize(reserved: reserved)
        let writes = draft.renumbered(map)
        try write(writes)
        return (map, reserved.last, writes)
    }
}
