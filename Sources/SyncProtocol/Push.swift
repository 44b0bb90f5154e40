/// `POST /v1/sync/push` request body.
///
/// ```swift
/// let request = PushRequest(deviceId: "dev-8842", schemaVersion: 3, ops: [
///     PushOp(opId: "op-1", clientSeq: 1, collection: "jobs", recordId: "job-1", type: .create,
///            occurredAt: "2026-11-03T08:12:00Z", fields: ["title": FieldChange(new: "Boiler")])
/// ])
/// ```
public struct PushRequest: Codable, Sendable, Hashable {
    public var deviceId: String
    /// The schema version the ops' payloads were written against.
    public var schemaVersion: Int
    public var clientSeqRange: ClientSeqRange?
    public var ops: [PushOp]

    public init(deviceId: String, schemaVersion: Int, clientSeqRange: ClientSeqRange? = nil, ops: [PushOp]) {
        self.deviceId = deviceId
        self.schemaVersion = schemaVersion
        self.clientSeqRange = clientSeqRange
        self.ops = ops
    }
}

/// The inclusive `clientSeq` range a push covers (informational).
public struct ClientSeqRange: Codable, Sendable, Hashable {
    public var from: Int64
    public var to: Int64

    public init(from: Int64, to: Int64) {
        self.from = from
        self.to = to
    }
}

/// The kind of a pushed op.
public enum OpType: String, Codable, Sendable, Hashable {
    case create, update, delete
}

/// One operation a device queued offline.
public struct PushOp: Codable, Sendable, Hashable {
    public var opId: String
    public var clientSeq: Int64
    public var collection: String
    public var recordId: String
    public var type: OpType
    /// Orders ops of one entity; defaults to `recordId` (see ``effectiveEntityKey``).
    public var entityKey: String?
    /// The record's `serverSeq` the device last saw; `nil` for a create.
    public var baseServerSeq: Int64?
    /// RFC 3339 device time; checked against a window, never used for ordering.
    public var occurredAt: String
    /// Changed fields; absent for `delete`.
    public var fields: [String: FieldChange]?
    /// Attachment ids that must be finalized before the op applies.
    public var dependsOn: [String]?
    /// The conflict entry this op settles in the device's favour.
    public var resolves: String?

    public init(
        opId: String, clientSeq: Int64, collection: String, recordId: String, type: OpType, entityKey: String? = nil,
        baseServerSeq: Int64? = nil, occurredAt: String, fields: [String: FieldChange]? = nil, dependsOn: [String]? = nil,
        resolves: String? = nil
    ) {
        self.opId = opId
        self.clientSeq = clientSeq
        self.collection = collection
        self.recordId = recordId
        self.type = type
        self.entityKey = entityKey
        self.baseServerSeq = baseServerSeq
        self.occurredAt = occurredAt
        self.fields = fields
        self.dependsOn = dependsOn
        self.resolves = resolves
    }

    /// `entityKey`, or `recordId` when the device sent none.
    public var effectiveEntityKey: String { entityKey ?? recordId }
}

/// One field of an op: the value the device saw (`old`) and the value it wants (`new`).
///
/// `nil` and JSON `null` mean the same for `old`; it is always encoded, as `null` when `nil`,
/// because PROTOCOL.md spells creates as `{"old": null, "new": value}`.
public struct FieldChange: Codable, Sendable, Hashable {
    public var old: JSONValue?
    public var new: JSONValue

    public init(old: JSONValue? = nil, new: JSONValue) {
        self.old = old == .null ? nil : old
        self.new = new
    }

    private enum CodingKeys: String, CodingKey { case old, new }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(old: try container.decodeIfPresent(JSONValue.self, forKey: .old), new: try container.decode(JSONValue.self, forKey: .new))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(old ?? .null, forKey: .old)
        try container.encode(new, forKey: .new)
    }
}

/// `POST /v1/sync/push` response: one result per op, in request order.
public struct PushResponse: Codable, Sendable, Hashable {
    public var results: [OpResult]
    /// The highest `serverSeq` committed when the response was built.
    public var newServerSeq: Int64
    public var minSupportedAppVersion: String
    public var serverSchemaVersion: Int

    public init(results: [OpResult], newServerSeq: Int64, minSupportedAppVersion: String, serverSchemaVersion: Int) {
        self.results = results
        self.newServerSeq = newServerSeq
        self.minSupportedAppVersion = minSupportedAppVersion
        self.serverSchemaVersion = serverSchemaVersion
    }
}
