import Foundation
import Postgres
public import SyncEngine

extension PostgresSettingsStore {
    /// The most recent settings changes, newest first.
    /// - Parameter limit: How many entries to return at most.
    public func auditTrail(limit: Int = 50) throws -> [SettingAuditEntry] {
        let rows = try database.connection { connection in
            try connection.query(
                """
                SELECT a.changed_at, a.changed_by, u.username, a.key, a.old_value::text AS old_value, a.new_value::text AS new_value
                FROM settings_audit a LEFT JOIN users u ON u.id = a.changed_by
                ORDER BY a.changed_at DESC, a.id DESC
                LIMIT \(limit)
                """)
        }
        return try rows.map { row in
            SettingAuditEntry(
                changedAt: try row.decode("changed_at"), userId: try row.decode("changed_by"), username: try row.decode("username"),
                key: try row.decode("key"), old: try row.decode("old_value"), new: try row.decode("new_value"))
        }
    }
}
