import Foundation
import Postgres
import SyncEngine
import SyncProtocol

/// What the server knows of each device's syncing: who uses it, its app version, when it
/// last synced. Every sync call records itself and emits `device.synced`; a push does it in
/// its own transaction (``SyncVisit``), other calls through ``recordSync(_:kind:)``.
public struct DeviceSyncStore: Sendable {
    let database: PostgresClient

    public init(database: PostgresClient) {
        self.database = database
    }

    /// Records a sync call and emits `device.synced` in one transaction of its own; returns the
    /// highest committed sequence number.
    @discardableResult
    public func recordSync(_ visit: SyncVisit, kind: String) throws -> Int64 {
        try database.withTransaction { connection in
            // Bookkeeping, not acknowledged data: losing the last seconds of it in a crash is
            // harmless, so this commit does not wait for the WAL flush.
            let statements = ["SET LOCAL synchronous_commit TO off", Self.stamp(visit)] + SequenceCounter.lock
            let results = try connection.pipeline(statements + EventOutbox.statements(inserting: [.deviceSynced(visit, kind: kind)]))
            // The counter row is locked by this transaction now, so its value is the latest committed number.
            return try results[statements.count - 1][0].decode(0, as: Int64.self)
        }
    }

    /// The device row's bookkeeping for `visit` (the row is created if the device is new).
    static func stamp(_ visit: SyncVisit) -> PostgresQuery {
        """
        INSERT INTO devices (device_id, user_id, app_version, last_sync_at) VALUES (\(visit.deviceId), \(visit.userId), \(visit.appVersion), now())
        ON CONFLICT (device_id) DO UPDATE SET
            user_id = excluded.user_id, app_version = coalesce(excluded.app_version, devices.app_version), last_sync_at = now()
        """
    }
}

extension PendingEvent {
    /// The `device.synced` event of a sync call (`kind`: `push` or `pull`), for the device's user and team.
    static func deviceSynced(_ visit: SyncVisit, kind: String) -> PendingEvent {
        let audience = ([ScopeKey.user(visit.userId)] + (visit.teamId.map { [ScopeKey.team($0)] } ?? [])).map(\.rawValue)
        let data: JSONValue = ["deviceId": .string(visit.deviceId), "userId": .string(visit.userId), "kind": .string(kind)]
        return PendingEvent(type: LiveEventType.deviceSynced.rawValue, data: data, audience: audience)
    }
}
