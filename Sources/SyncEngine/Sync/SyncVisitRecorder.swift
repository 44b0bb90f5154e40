import SyncProtocol

/// Records sync calls that wrote nothing else (a pull, or a push whose ops all failed in the
/// one-by-one fallback); a push otherwise records its visit in its own transaction.
public protocol SyncVisitRecorder: Sendable {
    /// Records the visit, and its `device.synced` event when `announced`, in a transaction of its
    /// own; returns the highest committed sequence number.
    /// - Parameter durable: the commit waits for the WAL flush, which it need not for bookkeeping
    ///   alone; a pull whose cursor carries its snapshot's horizon asks for it (`PullPage.carriesHorizon`).
    @discardableResult
    func record(_ visit: SyncVisit, kind: SyncVisit.Kind, announced: Bool, durable: Bool) throws -> Int64
}

extension SyncVisit {
    /// Which sync call a visit was, as `device.synced` events name it.
    public enum Kind: String, Sendable {
        case push, pull
    }

    /// The `device.synced` event of this visit, for the device's user and team.
    public func syncedEvent(_ kind: Kind) -> PendingEvent {
        let data: JSONValue = ["deviceId": .string(deviceId), "userId": .string(userId), "kind": .string(kind.rawValue)]
        return PendingEvent(type: .deviceSynced, data: data, audience: [.user(userId)] + (teamId.map { [.team($0)] } ?? []))
    }
}
