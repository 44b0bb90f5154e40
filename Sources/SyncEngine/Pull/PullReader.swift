/// The change log as pulls read it: what pulls need from the database.
public protocol PullReader: Sendable {
    /// Runs `body` on one consistent, read-only snapshot of the records, the exits and the counter.
    func snapshot<T>(_ body: (any PullSnapshot) throws -> T) throws -> T
}

/// The reads of one pull, all from the same snapshot.
public protocol PullSnapshot {
    /// The highest committed sequence number.
    func latestSequence() throws -> Int64

    /// Records whose latest change is after `position` that a caller seeing `visible` keys
    /// (nil: every key) sees now, ascending, at most `limit`, each record once; tombstones made
    /// at or before `skipTombstonesUpTo` are left out (an initial sync never had those records).
    /// Records of the `personal` collections count as seen only through `user:` keys.
    func records(
        after position: Int64, visible: [ScopeKey]?, personal: [String], skipTombstonesUpTo start: Int64?, limit: Int
    ) throws -> [PullRow]

    /// The latest exit after `position` of each record from any of `keys`, for records the caller
    /// sees through none of `keys` any more, ascending, at most `limit`; records of the
    /// `personal` collections count as seen only through `user:` keys.
    func exits(after position: Int64, keys: [ScopeKey], personal: [String], limit: Int) throws -> [PullRow]
}

/// A pull candidate: a record's latest change, or its exit from one of the caller's scopes,
/// already written as JSON text (PROTOCOL.md, Pull).
///
/// An upsert's field metadata comes apart from the rest of its change object, as the record
/// stores it, so a page can carry it in either wire form without reading the object again.
public struct PullRow: Sendable, Equatable {
    public var seq: Int64
    public var key: RecordKey
    /// The change object without its `fieldMeta` member.
    public var json: String
    /// An upsert's `fieldMeta` object (`{"field": {"seq": …, "opId": …, "deviceId": …}}`); nil otherwise.
    public var fieldMeta: String?

    public init(seq: Int64, key: RecordKey, json: String, fieldMeta: String? = nil) {
        self.seq = seq
        self.key = key
        self.json = json
        self.fieldMeta = fieldMeta
    }

    /// The bytes this change adds to a page in the default form.
    var byteCount: Int { json.utf8.count + (fieldMeta.map { $0.utf8.count + 13 } ?? 0) }
}
