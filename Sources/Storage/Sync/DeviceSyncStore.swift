import Foundation
import Postgres
import SyncEngine
import SyncProtocol

/// What the server knows of each device's syncing: who uses it, its app version, when it
/// last synced. Every sync call records itself and emits `device.synced`.
public struct DeviceSyncStore: Sendable {
    let database: PostgresClient

    public init(database: PostgresClient) {
        self.database = database
    }

    /// Records a sync call of `deviceId` by `userId` and emits `device.synced` in the same
    /// transaction; returns the highest committed sequence number.
    @discardableResult
    public func recordSync(deviceId: String, userId: String, teamId: String?, appVersion: String?, kind: String) throws -> Int64 {
        try database.withTransaction { connection in
            // Bookkeeping, not acknowledged data: losing the last seconds of it in a crash is
            // harmless, so this commit does not wait for the WAL flush.
            try connection.execute("SET LOCAL synchronous_commit TO off")
            try connection.execute("""
                INSERT INTO devices (device_id, user_id, app_version, last_sync_at) VALUES (\(deviceId), \(userId), \(appVersion), now())
                ON CONFLICT (device_id) DO UPDATE SET
                    user_id = excluded.user_id, app_version = coalesce(excluded.app_version, devices.app_version), last_sync_at = now()
                """)
            let audience = ([ScopeKey.user(userId)] + (teamId.map { [ScopeKey.team($0)] } ?? [])).map(\.rawValue)
            let data: JSONValue = ["deviceId": .string(deviceId), "userId": .string(userId), "kind": .string(kind)]
            try EventOutbox.append([PendingEvent(type: LiveEventType.deviceSynced.rawValue, data: data, audience: audience)], on: connection)
            // Read after the event insert: the counter row is locked by this transaction now.
            return try connection.query("SELECT value FROM sequence_counter")[0].decode(0, as: Int64.self)
        }
    }
}
