import Foundation
public import Postgres
public import SyncEngine

/// Devices' standing on PostgreSQL: the `devices` row with its user, the deferred count kept in
/// `op_log_counts`, and its upload sessions still open.
public struct PostgresDeviceStandingStore: DeviceStandingStore {
    let database: PostgresClient

    public init(database: PostgresClient) {
        self.database = database
    }

    public func standings() throws -> [DeviceStanding] {
        let rows = try database.connection { connection in
            try connection.query(
                """
                SELECT d.device_id, d.user_id, u.username, u.team_id, d.app_version, d.last_sync_at,
                       COALESCE((SELECT sum(c.ops) FROM op_log_counts c WHERE c.device_id = d.device_id AND c.status = 'deferred'), 0)::bigint,
                       (SELECT count(*) FROM attachments a WHERE a.device_id = d.device_id AND a.status = 'uploading')
                FROM devices d LEFT JOIN users u ON u.id = d.user_id
                ORDER BY d.device_id
                """)
        }
        return try rows.map { row in
            DeviceStanding(
                deviceId: try row.decode(0), userId: try row.decode(1), username: try row.decode(2), teamId: try row.decode(3),
                appVersion: try row.decode(4), lastSyncAt: try row.decode(5), deferredOps: Int(try row.decode(6, as: Int64.self)),
                incompleteUploads: Int(try row.decode(7, as: Int64.self)))
        }
    }
}
