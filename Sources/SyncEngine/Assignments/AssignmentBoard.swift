public import Foundation
public import SyncProtocol

/// What the back-office's assignment pages read: the work sent to the field (records of
/// ``AssignmentDesk/collections``) by field user or team, one record to edit, and whether a
/// team exists.
public protocol AssignmentBoard: Sendable {
    /// Live records of `filter.collection` matching the filter, by record id, a page at a time.
    /// - Throws: `PageCursor.Invalid` for a cursor this list did not write.
    func records(_ filter: AssignmentFilter, after: PageCursor?, limit: Int) throws -> PageOf<AssignedRecord>

    /// The record, live or deleted (`isDeleted`); nil when it never existed.
    func record(_ key: RecordKey) throws -> AssignedRecord?

    /// Whether the team exists (a user was ever placed in it).
    func teamExists(_ teamId: String) throws -> Bool
}

/// Which assigned records a list shows.
public struct AssignmentFilter: Sendable, Hashable {
    public var collection: String
    /// Only records whose `teamId` is this team.
    public var teamId: String?
    /// Only records whose `assigneeId` is this user.
    public var assigneeId: String?

    public init(collection: String, teamId: String? = nil, assigneeId: String? = nil) {
        self.collection = collection
        self.teamId = teamId
        self.assigneeId = assigneeId
    }
}

/// One record as the assignment pages show it.
public struct AssignedRecord: Sendable, Hashable {
    public var key: RecordKey
    public var payload: [String: JSONValue]
    /// The record's latest change: the `baseServerSeq` of an edit made from this view.
    public var serverSeq: Int64
    /// The assignee's user name, when the assignee is a known user.
    public var assigneeName: String?
    public var isDeleted: Bool
    public var updatedAt: Date

    public init(
        key: RecordKey, payload: [String: JSONValue], serverSeq: Int64, assigneeName: String?, isDeleted: Bool = false, updatedAt: Date
    ) {
        self.key = key
        self.payload = payload
        self.serverSeq = serverSeq
        self.assigneeName = assigneeName
        self.isDeleted = isDeleted
        self.updatedAt = updatedAt
    }

    public var assigneeId: String? { payload[ScopeFields.assignee]?.stringValue }
    public var teamId: String? { payload[ScopeFields.team]?.stringValue }
}
