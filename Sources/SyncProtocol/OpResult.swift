/// The outcome class of one pushed op.
public enum OpStatus: String, Codable, Sendable, Hashable {
    /// Committed; `serverSeq` assigned.
    case applied
    /// Overlapping change; `conflicts[]` lists fields, `appliedFields` those merged.
    case conflict
    /// Will never apply as sent; `code` says why.
    case rejected
    /// Held by the server; applies by itself once `missing` arrive.
    case deferred
    /// Transient failure; nothing stored.
    case retry
}

/// Which side kept an overlapping field.
public enum ConflictWinner: String, Codable, Sendable, Hashable {
    case client, server
}

/// The result of one op in a ``PushResponse``. Absent members are omitted from the JSON.
public struct OpResult: Codable, Sendable, Hashable {
    public var opId: String
    public var status: OpStatus
    public var code: ErrorCode?
    public var message: String?
    /// The sequence number of the change this op committed (none when nothing was applied).
    public var serverSeq: Int64?
    public var recordId: String?
    /// `true` when answered from the stored result of an op seen before.
    public var replayed: Bool?
    public var conflicts: [FieldConflict]?
    public var appliedFields: [String]?
    public var conflictId: String?
    public var missing: Missing?
    public var tombstoneSeq: Int64?
    /// `field` (VALIDATION_FAILED, UNKNOWN_FIELD, FIELD_READ_ONLY), `blockedBy` (PREDECESSOR_FAILED and
    /// entity-deferred ops), `serverPayload`/`serverSeq` (RECORD_EXISTS), `from`/`to` (TRANSITION_NOT_ALLOWED).
    public var details: [String: JSONValue]?

    public init(
        opId: String, status: OpStatus, code: ErrorCode? = nil, message: String? = nil, serverSeq: Int64? = nil,
        recordId: String? = nil, replayed: Bool? = nil, conflicts: [FieldConflict]? = nil, appliedFields: [String]? = nil,
        conflictId: String? = nil, missing: Missing? = nil, tombstoneSeq: Int64? = nil, details: [String: JSONValue]? = nil
    ) {
        self.opId = opId
        self.status = status
        self.code = code
        self.message = message
        self.serverSeq = serverSeq
        self.recordId = recordId
        self.replayed = replayed
        self.conflicts = conflicts
        self.appliedFields = appliedFields
        self.conflictId = conflictId
        self.missing = missing
        self.tombstoneSeq = tombstoneSeq
        self.details = details
    }

    /// What a deferred op waits for, encoded as a plain JSON array.
    ///
    /// `DEPENDENCY_PENDING` lists attachment ids (`["att-5501"]`); `AWAITING_PREDECESSOR`
    /// lists the absent client sequence numbers as JSON numbers (`[4101, 4102]`).
    public enum Missing: Codable, Sendable, Hashable {
        case attachments([String])
        case clientSeqs([Int64])

        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let seqs = try? container.decode([Int64].self), !seqs.isEmpty {
                self = .clientSeqs(seqs)
            } else {
                self = .attachments(try container.decode([String].self))
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .attachments(let ids): try container.encode(ids)
            case .clientSeqs(let seqs): try container.encode(seqs)
            }
        }

        /// The attachment ids, for `DEPENDENCY_PENDING`.
        public var attachmentIds: [String] {
            if case .attachments(let ids) = self { ids } else { [] }
        }

        /// The absent client sequence numbers, for `AWAITING_PREDECESSOR`.
        public var clientSeqs: [Int64] {
            if case .clientSeqs(let seqs) = self { seqs } else { [] }
        }
    }
}

/// One overlapping field, in a push result (`winner` set) or a conflict entry (`winner` absent).
///
/// `clientOld` and `serverCurrent` are always encoded, as `null` when the field had no value.
public struct FieldConflict: Codable, Sendable, Hashable {
    public var field: String
    public var clientOld: JSONValue?
    public var clientNew: JSONValue
    public var serverCurrent: JSONValue?
    /// The sequence number of the change that set `serverCurrent`.
    public var serverSeq: Int64
    public var winner: ConflictWinner?

    public init(
        field: String, clientOld: JSONValue?, clientNew: JSONValue, serverCurrent: JSONValue?, serverSeq: Int64,
        winner: ConflictWinner? = nil
    ) {
        self.field = field
        self.clientOld = clientOld == .null ? nil : clientOld
        self.clientNew = clientNew
        self.serverCurrent = serverCurrent == .null ? nil : serverCurrent
        self.serverSeq = serverSeq
        self.winner = winner
    }

    private enum CodingKeys: String, CodingKey { case field, clientOld, clientNew, serverCurrent, serverSeq, winner }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            field: try container.decode(String.self, forKey: .field),
            clientOld: try container.decodeIfPresent(JSONValue.self, forKey: .clientOld),
            clientNew: try container.decode(JSONValue.self, forKey: .clientNew),
            serverCurrent: try container.decodeIfPresent(JSONValue.self, forKey: .serverCurrent),
            serverSeq: try container.decode(Int64.self, forKey: .serverSeq),
            winner: try container.decodeIfPresent(ConflictWinner.self, forKey: .winner))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(field, forKey: .field)
        try container.encode(clientOld ?? .null, forKey: .clientOld)
        try container.encode(clientNew, forKey: .clientNew)
        try container.encode(serverCurrent ?? .null, forKey: .serverCurrent)
        try container.encode(serverSeq, forKey: .serverSeq)
        try container.encodeIfPresent(winner, forKey: .winner)
    }
}
