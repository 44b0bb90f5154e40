/// `GET /v1/sync/pull` response.
///
/// Decodes both forms of field metadata (PROTOCOL.md, Pull): a page asked for with
/// `fieldMeta=compact` names each op once in `fieldMetaOps`, and its fields point at it; the
/// decoded changes are the same in either form.
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

    private enum CompactKeys: String, CodingKey {
        case fieldMetaOps
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let ops = try decoder.container(keyedBy: CompactKeys.self)
        let table = try ops.decodeIfPresent([FieldMetaOp].self, forKey: .fieldMetaOps) ?? []
        var changes = try container.decode([Change].self, forKey: .changes)
        for index in changes.indices {
            guard let fieldMeta = changes[index].fieldMeta else { continue }
            changes[index].fieldMeta = try fieldMeta.mapValues { meta in
                guard let op = meta.opIndex else { return meta }
                guard table.indices.contains(op) else {
                    throw DecodingError.dataCorruptedError(
                        forKey: .fieldMetaOps, in: ops, debugDescription: "a fieldMeta entry points at op \(op), past the table")
                }
                return FieldMeta(seq: meta.seq, opId: table[op].opId, deviceId: table[op].deviceId)
            }
        }
        self.init(
            changes: changes, nextCursor: try container.decode(String.self, forKey: .nextCursor),
            hasMore: try container.decode(Bool.self, forKey: .hasMore), newServerSeq: try container.decode(Int64.self, forKey: .newServerSeq),
            minSupportedAppVersion: try container.decode(String.self, forKey: .minSupportedAppVersion),
            serverSchemaVersion: try container.decode(Int.self, forKey: .serverSchemaVersion))
    }
}

/// One entry of a compact page's `fieldMetaOps`: the op and device that last set some fields.
public struct FieldMetaOp: Codable, Sendable, Hashable {
    public var opId: String?
    public var deviceId: String?

    public init(opId: String?, deviceId: String?) {
        self.opId = opId
        self.deviceId = deviceId
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

/// Which change last set a field: `fieldMeta[field] = {seq, opId, deviceId}`, or in a compact
/// page `[seq]` or `[seq, op]` with `op` an index into the page's `fieldMetaOps`.
public struct FieldMeta: Codable, Sendable, Hashable {
    public var seq: Int64
    public var opId: String?
    public var deviceId: String?
    /// A compact entry's index into `fieldMetaOps`, until `PullResponse` resolves it.
    var opIndex: Int?

    public init(seq: Int64, opId: String? = nil, deviceId: String? = nil) {
        self.seq = seq
        self.opId = opId
        self.deviceId = deviceId
    }

    enum CodingKeys: String, CodingKey {
        case seq, opId, deviceId
    }

    public init(from decoder: any Decoder) throws {
        guard var compact = try? decoder.unkeyedContainer() else {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.init(
                seq: try container.decode(Int64.self, forKey: .seq), opId: try container.decodeIfPresent(String.self, forKey: .opId),
                deviceId: try container.decodeIfPresent(String.self, forKey: .deviceId))
            return
        }
        self.init(seq: try compact.decode(Int64.self))
        if !compact.isAtEnd {
            let op = try compact.decode(Int.self)
            guard op >= 0 else { throw DecodingError.dataCorruptedError(in: compact, debugDescription: "an op index is not negative") }
            opIndex = op
        }
        guard compact.isAtEnd else { throw DecodingError.dataCorruptedError(in: compact, debugDescription: "a compact entry is [seq] or [seq, op]") }
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
