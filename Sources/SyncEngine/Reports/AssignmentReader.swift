public import SyncProtocol

/// The caller's visible, live `assignments` records changed after a revision, for offline
/// pre-caching by report apps (PROTOCOL.md "Inspection reports"): what `GET /v1/assignments`
/// reads from the database.
///
/// Tombstoned assignments and scope exits are not listed: a report app that needs removals
/// uses the pull endpoint, which carries them.
public protocol AssignmentReader: Sendable {
    /// Up to `limit` assignments visible to `principal` with `serverSeq > since`, ascending.
    func assignments(for principal: Principal, since: Int64, limit: Int) throws -> [CachedAssignment]
}

/// One `assignments` record as `GET /v1/assignments` lists it.
public struct CachedAssignment: Sendable, Hashable {
    public let assignmentId: String
    public let payload: [String: JSONValue]
    /// The record's `serverSeq`: its revision.
    public let revision: Int64

    public init(assignmentId: String, payload: [String: JSONValue], revision: Int64) {
        self.assignmentId = assignmentId
        self.payload = payload
        self.revision = revision
    }
}
