/// Whether a conflict entry still awaits a decision.
public enum ConflictState: String, Codable, Sendable, Hashable {
    case open, resolved
}

/// How a conflict was (or should be) settled.
public enum ResolutionChoice: String, Codable, Sendable, Hashable {
    /// Keep the server's values.
    case server
    /// Apply the device's revision over the current record.
    case device
    /// Apply the values given in ``ResolveRequest/fields``.
    case merge
}

/// One entry of the review queue (`GET /v1/conflicts`).
public struct ConflictEntry: Codable, Sendable, Hashable {
    public var id: String
    public var collection: String
    public var recordId: String
    public var opId: String
    public var deviceId: String
    public var authorId: String
    public var state: ConflictState
    /// RFC 3339.
    public var openedAt: String
    /// The fields the server kept (no `winner` member here).
    public var fields: [FieldConflict]
    /// The full payload the device wanted.
    public var deviceRevision: [String: JSONValue]
    /// The full server payload at that moment.
    public var serverRevision: [String: JSONValue]
    public var resolution: Resolution?

    public init(
        id: String, collection: String, recordId: String, opId: String, deviceId: String, authorId: String,
        state: ConflictState, openedAt: String, fields: [FieldConflict], deviceRevision: [String: JSONValue],
        serverRevision: [String: JSONValue], resolution: Resolution? = nil
    ) {
        self.id = id
        self.collection = collection
        self.recordId = recordId
        self.opId = opId
        self.deviceId = deviceId
        self.authorId = authorId
        self.state = state
        self.openedAt = openedAt
        self.fields = fields
        self.deviceRevision = deviceRevision
        self.serverRevision = serverRevision
        self.resolution = resolution
    }

    /// How and when an entry was resolved.
    public struct Resolution: Codable, Sendable, Hashable {
        public var choice: ResolutionChoice
        /// The resolving user's id.
        public var by: String
        /// RFC 3339.
        public var at: String
        /// The change the resolution committed.
        public var serverSeq: Int64

        public init(choice: ResolutionChoice, by: String, at: String, serverSeq: Int64) {
            self.choice = choice
            self.by = by
            self.at = at
            self.serverSeq = serverSeq
        }
    }
}

/// `GET /v1/conflicts` response.
public struct ConflictListResponse: Codable, Sendable, Hashable {
    public var conflicts: [ConflictEntry]

    public init(conflicts: [ConflictEntry]) { self.conflicts = conflicts }
}

/// `POST /v1/conflicts/{id}/resolve` request. `fields` only for `merge`.
public struct ResolveRequest: Codable, Sendable, Hashable {
    public var choice: ResolutionChoice
    public var fields: [String: JSONValue]?

    public init(choice: ResolutionChoice, fields: [String: JSONValue]? = nil) {
        self.choice = choice
        self.fields = fields
    }
}
