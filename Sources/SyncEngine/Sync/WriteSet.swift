public import SyncProtocol

/// Everything one transaction of the sync engine writes, handed to ``SyncTransaction/write(_:)`` at once.
///
/// Storage turns each list into one multi-row statement. All sequence numbers inside are final
/// (taken from ``SyncTransaction/reserveSequence(count:)`` earlier in the same transaction).
public struct WriteSet: Hashable, Sendable {
    /// Upsert on `(deviceId, opId)`: new results, and deferred ops that settled or changed.
    public var opLog: [OpLogEntry] = []
    /// Upsert on `(collection, recordId)`: each touched record's final state, once.
    public var records: [StoredRecord] = []
    /// Insert: one row per change, ascending `seq`.
    public var changes: [ChangeLogEntry] = []
    /// Insert: conflict entries that opened.
    public var openedConflicts: [StoredConflict] = []
    /// Update by id: entries now `resolved` (the whole entry with its resolution).
    public var resolvedConflicts: [ConflictEntry] = []
    /// Insert into the outbox, in this order.
    public var events: [OutboxEvent] = []
    /// The device's new contiguous high-water `clientSeq`, when a push moved it.
    public var deviceHighWater: DeviceHighWater?
    /// The sync call this transaction records: the device row's bookkeeping, and a
    /// `device.synced` event after the events above.
    public var visit: SyncVisit?

    public init() {}

    /// `true` when there is nothing to write.
    public var isEmpty: Bool {
        opLog.isEmpty && records.isEmpty && changes.isEmpty && openedConflicts.isEmpty && resolvedConflicts.isEmpty
            && events.isEmpty && deviceHighWater == nil && visit == nil
    }

    /// `true` when the visit is all there is to write: no op settled, nothing changed.
    public var recordsVisitOnly: Bool {
        var rest = self
        rest.visit = nil
        return visit != nil && rest.isEmpty
    }

    /// The op ids this write set settles (used to pin an injected failure to an op in tests).
    public var opIds: [String] { opLog.map(\.opId) }
}

/// A device's new high-water mark.
public struct DeviceHighWater: Hashable, Codable, Sendable {
    public var deviceId: String
    public var highWater: Int64

    public init(deviceId: String, highWater: Int64) {
        self.deviceId = deviceId
        self.highWater = highWater
    }
}

/// A device's sync call as the back office sees it: who synced, from which app version.
///
/// A push records it in its own transaction, so the push costs one transaction, not two.
public struct SyncVisit: Hashable, Codable, Sendable {
    public var deviceId: String
    public var userId: String
    public var teamId: String?
    /// The version the app reported (`X-App-Version`), if it did.
    public var appVersion: String?

    public init(principal: Principal, appVersion: String?) {
        deviceId = principal.deviceId
        userId = principal.userId
        teamId = principal.teamId
        self.appVersion = appVersion
    }
}
