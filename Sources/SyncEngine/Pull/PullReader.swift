/// The change log as pulls read it: what pulls need from the database.
public protocol PullReader: Sendable {
    /// Runs `body` on one consistent, read-only snapshot of the records and the exits.
    func snapshot<T>(_ body: (any PullSnapshot) throws -> T) throws -> T
}

/// The reads of one pull, all from the same snapshot.
public protocol PullSnapshot {
    /// The highest sequence number issued so far (`newServerSeq`).
    func latestSequence() throws -> Int64

    /// The id of the oldest writing transaction still running when the snapshot was taken (or
    /// of the next one, when none was): every change of a lower transaction is in the snapshot,
    /// and every change not in it has a transaction at or above it (docs/decisions/0004).
    func horizon() throws -> Int64

    /// Records whose latest change is after `position` and below `horizon` that a caller seeing
    /// `visible` keys (nil: every key) sees now, in position order, at most `limit`, each record
    /// once; tombstones at or before `skipTombstonesUpTo` are left out (an initial sync never had
    /// those records). Records of the `personal` collections count as seen only through `user:` keys.
    func records(
        after position: PullPosition, below horizon: Int64, visible: [ScopeKey]?, personal: [String],
        skipTombstonesUpTo start: PullPosition?, limit: Int
    ) throws -> [PullRow]

    /// The latest exit after `position` and below `horizon` of each record from any of `keys`, for
    /// records the caller sees through none of `keys` any more, in position order, at most
    /// `limit`; records of the `personal` collections count as seen only through `user:` keys.
    func exits(after position: PullPosition, below horizon: Int64, keys: [ScopeKey], personal: [String], limit: Int) throws -> [PullRow]
}

/// A pull candidate: a record's latest change, or its exit from one of the caller's scopes,
/// already written as JSON text (PROTOCOL.md, Pull).
///
/// An upsert's field metadata comes apart from the rest of its change object, as the record
/// stores it, so a page can carry it in either wire form without reading the object again.
public struct PullRow: Sendable, Equatable {
    public var seq: Int64
    /// The transaction that wrote the change (0 before the scheme recorded it).
    public var xid: Int64
    public var key: RecordKey
    /// The change object without its `fieldMeta` member.
    public var json: String
    /// An upsert's `fieldMeta` object (`{"field": {"seq": …, "opId": …, "deviceId": …}}`); nil otherwise.
    public var fieldMeta: String?

    public init(seq: Int64, xid: Int64, key: RecordKey, json: String, fieldMeta: String? = nil) {
        self.seq = seq
        self.xid = xid
        self.key = key
        self.json = json
        self.fieldMeta = fieldMeta
    }

    /// The bytes this change adds to a page in the default form.
    var byteCount: Int { json.utf8.count + (fieldMeta.map { $0.utf8.count + 13 } ?? 0) }

    /// Where the change sits in pull order.
    public var position: PullPosition { PullPosition(xid: xid, seq: seq) }
}
