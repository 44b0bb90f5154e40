public import SyncProtocol

/// A conflict entry with what Storage needs to filter the review queue.
public struct StoredConflict: Hashable, Codable, Sendable {
    public var entry: ConflictEntry
    /// The record's scope keys when the entry opened (a supervisor sees its team's entries).
    public var scopeKeys: [ScopeKey]

    public init(entry: ConflictEntry, scopeKeys: [ScopeKey]) {
        self.entry = entry
        self.scopeKeys = scopeKeys
    }

    public var id: String { entry.id }
}

/// One row of the change log, the spine of pulls: a record changed at `seq`.
///
/// Pulls join it to the record's latest state. `scopeKeysBefore`/`scopeKeysAfter` let a pull
/// emit `remove` to a caller who saw the record before the change and no longer does.
public struct ChangeLogEntry: Hashable, Codable, Sendable {
    public var seq: Int64
    public var collection: String
    public var recordId: String
    /// `upsert` or `delete`.
    public var type: ChangeType
    /// Empty for a create.
    public var scopeKeysBefore: [ScopeKey]
    public var scopeKeysAfter: [ScopeKey]

    public init(seq: Int64, collection: String, recordId: String, type: ChangeType, scopeKeysBefore: [ScopeKey], scopeKeysAfter: [ScopeKey]) {
        self.seq = seq
        self.collection = collection
        self.recordId = recordId
        self.type = type
        self.scopeKeysBefore = scopeKeysBefore
        self.scopeKeysAfter = scopeKeysAfter
    }

    public var key: RecordKey { RecordKey(collection: collection, recordId: recordId) }
}

/// Who receives a live event: callers who see any of `scopeKeys`, plus `userIds` (the author).
/// Dispatchers and admins receive everything.
public struct EventAudience: Hashable, Codable, Sendable {
    public var scopeKeys: [ScopeKey]
    public var userIds: [String]

    public init(scopeKeys: [ScopeKey], userIds: [String]) {
        self.scopeKeys = scopeKeys
        self.userIds = userIds
    }
}

/// A live event to publish after commit (an outbox row; Storage assigns its stream id).
public struct OutboxEvent: Hashable, Codable, Sendable {
    public var type: LiveEventType
    public var collection: String
    public var recordId: String
    public var serverSeq: Int64?
    public var conflictId: String?
    /// The order status, for `order.*` events.
    public var status: String?
    public var audience: EventAudience

    public init(
        type: LiveEventType, collection: String, recordId: String, serverSeq: Int64? = nil, conflictId: String? = nil,
        status: String? = nil, audience: EventAudience
    ) {
        self.type = type
        self.collection = collection
        self.recordId = recordId
        self.serverSeq = serverSeq
        self.conflictId = conflictId
        self.status = status
        self.audience = audience
    }

    /// The `data:` JSON of the event, as PROTOCOL "Live events" defines it per type
    /// (the shapes of ``ConflictEvent``, ``OrderEvent`` and ``RecordChangedEvent``).
    public var data: JSONValue {
        switch type {
        case .conflictOpened, .conflictResolved:
            return ["conflictId": .string(conflictId ?? ""), "collection": .string(collection), "recordId": .string(recordId)]
        case .orderCreated, .orderStatusChanged:
            return ["orderId": .string(recordId), "status": .string(status ?? ""), "serverSeq": .int(serverSeq ?? 0)]
        default:
            return ["collection": .string(collection), "recordId": .string(recordId), "serverSeq": .int(serverSeq ?? 0)]
        }
    }
}
