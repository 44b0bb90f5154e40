public import Foundation
public import SyncProtocol

/// The sync centre's reads: devices with how their ops ended, a device's journal and a
/// record's history. What the back-office's sync centre needs from the database.
public protocol SyncCentreStore: Sendable {
    /// One page of devices, most recently synced first (never synced last); only the team's
    /// members' devices when `teamId` is given.
    /// - Throws: `PageCursor.Invalid` when `after` is not a cursor of this list.
    func devices(teamId: String?, after: PageCursor?, limit: Int) throws -> PageOf<DeviceSyncSummary>

    /// One device with its user and op counts; nil when the server does not know it.
    func device(id: String) throws -> DeviceSyncSummary?

    /// How many devices run each app version (nil: not yet reported), for the team when given.
    func appVersionCounts(teamId: String?) throws -> [(version: String?, count: Int)]

    /// One page of a device's ops, newest first, optionally of one status; for a team, only
    /// the ops its members wrote.
    /// - Throws: `PageCursor.Invalid` when `after` is not a cursor of this journal.
    func journal(deviceId: String, teamId: String?, status: OpStatus?, after: PageCursor?, limit: Int) throws -> PageOf<JournalEntry>

    /// One page of the ops that named the record, in the order the server settled them; for a
    /// team, only when the record is in the team's scope or the op's author is a member.
    /// - Throws: `PageCursor.Invalid` when `after` is not a cursor of this history.
    func history(collection: String, recordId: String, teamId: String?, after: PageCursor?, limit: Int) throws -> PageOf<JournalEntry>

    /// The record's current state; nil when the server never stored it or, for a team, when it
    /// is outside the team's scope.
    func record(collection: String, recordId: String, teamId: String?) throws -> RecordSnapshot?
}

extension SyncCentreStore {
    /// Every op of a device's journal (optionally of one status; for a team, only its
    /// members'), newest first, handed to `body` `batchSize` at a time: an export holds one
    /// batch in memory, not the whole log.
    public func forEachJournalBatch(
        deviceId: String, teamId: String? = nil, status: OpStatus?, batchSize: Int = 1000, _ body: ([JournalEntry]) throws -> Void
    ) throws {
        var after: PageCursor?
        repeat {
            let page = try journal(deviceId: deviceId, teamId: teamId, status: status, after: after, limit: batchSize)
            try body(page.rows)
            after = page.next
        } while after != nil
    }
}

/// A device as the sync centre lists it: who uses it, what app it runs, and how its ops ended.
public struct DeviceSyncSummary: Sendable {
    public var deviceId: String
    public var userId: String?
    public var username: String?
    public var teamId: String?
    public var appVersion: String?
    public var platform: String?
    public var lastSyncAt: Date?
    public var applied: Int
    public var deferred: Int
    public var rejected: Int
    public var conflict: Int
    /// When the server first heard from the device: a journal started after retention's
    /// window has lost nothing to it.
    public var firstSeenAt: Date?

    public init(
        deviceId: String, userId: String?, username: String?, teamId: String?, appVersion: String?, platform: String?, lastSyncAt: Date?,
        applied: Int, deferred: Int, rejected: Int, conflict: Int
    ) {
        (self.deviceId, self.userId, self.username, self.teamId) = (deviceId, userId, username, teamId)
        (self.appVersion, self.platform, self.lastSyncAt) = (appVersion, platform, lastSyncAt)
        (self.applied, self.deferred, self.rejected, self.conflict) = (applied, deferred, rejected, conflict)
    }
}

/// One op of the op log, as the journal and the record history show it.
public struct JournalEntry: Sendable {
    public var deviceId: String
    public var opId: String
    public var clientSeq: Int64
    public var collection: String
    public var recordId: String
    public var authorName: String?
    public var status: OpStatus
    public var code: ErrorCode?
    /// The message stored with the result, if any.
    public var message: String?
    public var serverSeq: Int64?
    /// The op as the device sent it (`type`, `fields`, `occurredAt`, …).
    public var body: JSONValue
    /// The device's clock when the change was made (RFC 3339), from the column or the op body.
    public var occurredAt: String?
    public var receivedAt: Date
    public var decidedAt: Date

    public init(
        deviceId: String, opId: String, clientSeq: Int64, collection: String, recordId: String, authorName: String?, status: OpStatus,
        code: ErrorCode?, message: String?, serverSeq: Int64?, body: JSONValue, occurredAt: String?, receivedAt: Date, decidedAt: Date
    ) {
        (self.deviceId, self.opId, self.clientSeq, self.collection, self.recordId) = (deviceId, opId, clientSeq, collection, recordId)
        (self.authorName, self.status, self.code, self.message, self.serverSeq) = (authorName, status, code, message, serverSeq)
        (self.body, self.occurredAt, self.receivedAt, self.decidedAt) = (body, occurredAt, receivedAt, decidedAt)
    }

    /// `create`, `update` or `delete`, as sent.
    public var type: String? { body["type"]?.stringValue }

    /// The names of the fields the op changes, sorted.
    public var fieldNames: [String] {
        guard case .object(let fields)? = body["fields"] else { return [] }
        return fields.keys.sorted()
    }
}

/// The record as it stands now, for the top of its history.
public struct RecordSnapshot: Sendable {
    public var payload: [String: JSONValue]
    public var serverSeq: Int64
    public var deleted: Bool
    public var conflictId: String?
    public var scopeKeys: [ScopeKey]

    public init(payload: [String: JSONValue], serverSeq: Int64, deleted: Bool, conflictId: String?, scopeKeys: [ScopeKey]) {
        (self.payload, self.serverSeq, self.deleted, self.conflictId, self.scopeKeys) = (payload, serverSeq, deleted, conflictId, scopeKeys)
    }
}
