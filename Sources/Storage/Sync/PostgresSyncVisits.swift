import Foundation
public import Postgres
public import SyncEngine
import SyncProtocol

/// The device rows' sync bookkeeping on PostgreSQL (a push records its visit in its own
/// transaction, through ``PreparedWrites``).
public struct PostgresSyncVisits: SyncVisitRecorder {
    let database: PostgresClient

    public init(database: PostgresClient) {
        self.database = database
    }

    @discardableResult
    public func record(_ visit: SyncVisit, kind: SyncVisit.Kind, announced: Bool, durable: Bool) throws -> Int64 {
        try database.transaction { connection in
            // Bookkeeping alone: losing the last seconds of it in a crash is harmless, so the
            // commit need not wait for the WAL flush. A durable one makes every transaction id
            // below its own durable too, so none of them is issued again after a crash
            // (docs/decisions/0004, "Crashes"); the stamp always gives it an id.
            let statements = [durable ? CommitFlush.awaited : CommitFlush.skipped, Self.stamp(visit), ServerSequence.latest]
            let event = announced ? EventOutbox.inserts(inserting: [visit.syncedEvent(kind)]) : []
            if announced { EventOutbox.notifyAfterCommit(on: connection) }
            let results = try connection.pipeline(statements + event)
            return try results[statements.count - 1][0].decode(0, as: Int64.self)
        }
    }

    /// The device row's bookkeeping for `visit` (the row is created if the device is new); a
    /// visit never changes who owns the device.
    static func stamp(_ visit: SyncVisit) -> PostgresQuery {
        """
        INSERT INTO devices (device_id, user_id, app_version, last_sync_at) VALUES (\(visit.deviceId), \(visit.userId), \(visit.appVersion), now())
        ON CONFLICT (device_id) DO UPDATE SET
            user_id = COALESCE(devices.user_id, excluded.user_id), app_version = coalesce(excluded.app_version, devices.app_version),
            last_sync_at = now()
        """
    }
}
