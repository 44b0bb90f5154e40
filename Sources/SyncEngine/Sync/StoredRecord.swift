public import SyncProtocol

/// Identifies a record: `(collection, recordId)`. Sorted by collection, then id — the order in
/// which Storage must lock records (`FOR UPDATE`) so concurrent pushes never deadlock.
/// An attachment id together with the record it was registered for.
public struct AttachmentRef: Hashable, Sendable {
    public var attId: String
    public var record: RecordKey

    public init(attId: String, record: RecordKey) {
        self.attId = attId
        self.record = record
    }
}

public struct RecordKey: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
    public var collection: String
    public var recordId: String

    public init(collection: String, recordId: String) {
        self.collection = collection
        self.recordId = recordId
    }

    public static func < (lhs: RecordKey, rhs: RecordKey) -> Bool {
        (lhs.collection, lhs.recordId) < (rhs.collection, rhs.recordId)
    }

    public var description: String { "\(collection)/\(recordId)" }
}

/// A record as the server keeps it: the row Storage loads and writes.
///
/// A tombstoned record keeps its last payload so its scope keys stay known; pulls send it as a
/// `delete`. `conflictId` flags an open conflict entry (pulls show `conflict: {id, state}`).
public struct StoredRecord: Hashable, Codable, Sendable {
    public var collection: String
    public var recordId: String
    /// The current fields; a field set to `null` is absent.
    public var payload: [String: JSONValue]
    /// Which change last set each field.
    public var fieldMeta: [String: FieldMeta]
    /// The sequence number of the record's latest change.
    public var serverSeq: Int64
    /// Set once the record is deleted: the deleting change's sequence number.
    public var tombstoneSeq: Int64?
    /// The open conflict entry flagged on this record, if any.
    public var conflictId: String?
    /// The schema version of `payload`.
    public var schemaVersion: Int
    /// RFC 3339 server time of the create.
    public var createdAt: String
    /// RFC 3339 server time of the latest change.
    public var updatedAt: String

    public init(
        collection: String, recordId: String, payload: [String: JSONValue], fieldMeta: [String: FieldMeta], serverSeq: Int64,
        tombstoneSeq: Int64? = nil, conflictId: String? = nil, schemaVersion: Int, createdAt: String, updatedAt: String
    ) {
        self.collection = collection
        self.recordId = recordId
        self.payload = payload
        self.fieldMeta = fieldMeta
        self.serverSeq = serverSeq
        self.tombstoneSeq = tombstoneSeq
        self.conflictId = conflictId
        self.schemaVersion = schemaVersion
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    public var key: RecordKey { RecordKey(collection: collection, recordId: recordId) }

    /// Sorted scope keys from `assigneeId` and `teamId`; Storage stores them for scoped queries.
    public var scopeKeys: [ScopeKey] { ScopeKey.keys(of: payload) }

    public var isDeleted: Bool { tombstoneSeq != nil }
}
