public import Foundation
public import SyncProtocol

/// The team roll-up's reads: what supervisors' phones (`GET /v1/team/rollup`) and the
/// back-office's team page need from the database.
public protocol TeamRollupStore: Sendable {
    /// Every member of `teamId`, by user name, with their figures.
    func rollup(teamId: String) throws -> [MemberRollup]

    /// The teams that have members, sorted; an administrator picks among them.
    func teams() throws -> [String]
}

/// What the server knows about one team member's work: their records, how their ops
/// ended, the conflicts they raised and when their devices last synced.
public struct MemberRollup: Sendable, Equatable {
    public var userId: String
    public var username: String
    public var role: Role
    public var suspended: Bool
    /// Records assigned to them (`user:<id>` scope) that are not deleted.
    public var activeRecords: Int
    /// Of those, records flagged with an open conflict.
    public var recordsInReview: Int
    /// Their records that were deleted (tombstones the server still keeps).
    public var deletedRecords: Int
    public var opsApplied: Int
    /// Ops the server holds until an earlier change or a photo arrives.
    public var opsDeferred: Int
    public var opsRejected: Int
    public var opsConflict: Int
    /// Conflicts raised by their ops and still open.
    public var openConflicts: Int
    public var devices: Int
    public var lastSyncAt: Date?

    public init(
        userId: String, username: String, role: Role, suspended: Bool, activeRecords: Int, recordsInReview: Int, deletedRecords: Int,
        opsApplied: Int, opsDeferred: Int, opsRejected: Int, opsConflict: Int, openConflicts: Int, devices: Int, lastSyncAt: Date?
    ) {
        (self.userId, self.username, self.role, self.suspended) = (userId, username, role, suspended)
        (self.activeRecords, self.recordsInReview, self.deletedRecords) = (activeRecords, recordsInReview, deletedRecords)
        (self.opsApplied, self.opsDeferred, self.opsRejected, self.opsConflict) = (opsApplied, opsDeferred, opsRejected, opsConflict)
        (self.openConflicts, self.devices, self.lastSyncAt) = (openConflicts, devices, lastSyncAt)
    }
}
