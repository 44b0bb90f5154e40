/// `GET /v1/sync/pull` response.
public struct PullResponse: Codable, Sendable, Hashable {
    public var changes: [Change]
    public var nextCursor: String
    public var hasMore: Bool
    public var newServerSeq: Int64
    public var minSupportedAppVersion: String
    public var serverSchemaVersion: Int

    public init(
        changes: [Change], nextCursor: String, hasMore: Bool, newServerSeq: Int64, minSupportedAppVersion: String,
        serverSchemaVersion: Int
    ) {
        self.changes = changes
        self.nextCursor = nextCursor
        self.hasMore = hasMore
        self.newServerSeq = newServerSeq
        self.minSupportedAppVersion = minSupportedAppVersion
        self.serverSchemaVersion = serverSchemaVersion
    }
}

/// The kind of a pulled change.
public enum ChangeType: String, Codable, Sendable, Hashable {
    /// The record's full current payload.
    case upsert
    /// The record was deleted (tombstone).
    case delete
    /// The record left the caller's scope: drop it locally, it was not deleted.
    case remove
}

/// Which change last set a field: `fieldMeta[field] = {seq, opId, deviceId}`.
public struct FieldMeta: Codable, Sendable, Hashable {
    public var seq: Int64
    public var opId: String?
    public var deviceId: String?

    public init(seq: Int64, opId: String? = nil, deviceId: String? = nil) {
        self.seq = seq
        self.opId = opId
        self.deviceId = deviceId
    }
}

/// One record's latest state in a pull page.
public struct Change: Codable, Sendable, Hashable {
    public var collection: String
    public var recordId: String
    public var serverSeq: Int64
    public var type: ChangeType
    public var payload: [String: JSONValue]?
    public var fieldMeta: [String: FieldMeta]?
    public var schemaVersion: Int?
    public var tombstone: Tombstone?
    public var conflict: ConflictRef?

    public init(
        collection: String, recordId: String, serverSeq: Int64, type: ChangeType, payload: [String: JSONValue]? = nil,
        fieldMeta: [String: FieldMeta]? = nil, schemaVersion: Int? = nil, tombstone: Tombstone? = nil,
        conflict: ConflictRef? = nil
    ) {
        self.collection = collection
        self.recordId = recordId
        self.serverSeq = serverSeq
        self.type = type
        self.payload = payload
        self.fieldMeta = fieldMeta
        self.schemaVersion = schemaVersion
        self.tombstone = tombstone
        self.conflict = conflict
    }

    /// `{"deletedServerSeq": n}` on a `delete` change.
    public struct Tombstone: Codable, Sendable, Hashable {
        public var deletedServerSeq: Int64

        public init(deletedServerSeq: Int64) { self.deletedServerSeq = deletedServerSeq }
    }

    /// `{"id": "…", "state": "open"}` on a record with an open conflict entry.
    public struct ConflictRef: Codable, Sendable, Hashable {
        public var id: String
        public var state: ConflictState

        public init(id: String, state: ConflictState = .open) {
            self.id = id
            self.state = state
        }
    }
}
