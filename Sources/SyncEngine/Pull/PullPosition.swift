/// A place in the order pulls read changes in: the id of the transaction that wrote a change,
/// then its `serverSeq` (docs/decisions/0004).
///
/// Every change below a reading snapshot's horizon (the oldest transaction still running) has
/// committed, and any change committed later carries a transaction id at or above that horizon,
/// so it sorts after every position a pull has handed out. Changes written before transaction
/// ids were recorded have transaction 0 and keep their `serverSeq` order.
public struct PullPosition: Codable, Hashable, Comparable, Sendable {
    /// The writing transaction's id (PostgreSQL `xid8`), 0 for changes older than the scheme.
    public var xid: Int64
    public var seq: Int64

    public init(xid: Int64, seq: Int64) {
        self.xid = xid
        self.seq = seq
    }

    /// Before every change.
    public static let start = PullPosition(xid: 0, seq: 0)

    /// Past every change of transactions below `horizon`.
    public static func horizon(_ xid: Int64) -> PullPosition { PullPosition(xid: xid, seq: 0) }

    public static func < (lhs: PullPosition, rhs: PullPosition) -> Bool {
        (lhs.xid, lhs.seq) < (rhs.xid, rhs.seq)
    }
}
