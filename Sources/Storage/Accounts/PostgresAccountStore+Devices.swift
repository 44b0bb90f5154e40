import Cryptography
import Foundation
import Postgres
import SyncEngine

/// Releasing a device id so that another user may sign in with it.
extension PostgresAccountStore {
    /// Releases `deviceId` when `ownerId` owns it: in one transaction, the device's row, op
    /// log, upload sessions and conflict entries move to a retired id, its tokens are
    /// revoked, and the release is audited. The op log keeps its authors, so the journal
    /// stays, under the retired id, marked with the old user.
    /// - Returns: the retired id; nil when `ownerId` does not own `deviceId`.
    public func releaseDevice(_ deviceId: String, ownedBy ownerId: String, by actorId: String?) throws -> String? {
        let retired = DeviceRelease.retiredId(deviceId, suffix: SecureRandom.bytes(4).hexString)
        return try database.transaction { connection in
            let owned = try connection.query(
                """
                SELECT 1 FROM devices WHERE device_id = \(deviceId) AND user_id = \(ownerId) FOR UPDATE
                """)
            guard !owned.isEmpty else { return nil }
            try Self.announceChange(connection)
            try connection.pipeline([
                "UPDATE devices SET device_id = \(retired) WHERE device_id = \(deviceId)",
                "UPDATE op_log SET device_id = \(retired) WHERE device_id = \(deviceId)",
                "UPDATE attachments SET device_id = \(retired) WHERE device_id = \(deviceId)",
                "UPDATE conflicts SET device_id = \(retired) WHERE device_id = \(deviceId)",
                "UPDATE device_tokens SET revoked_at = now() WHERE device_id = \(deviceId) AND revoked_at IS NULL",
                """
                INSERT INTO admin_audit (actor_id, action, subject, detail)
                VALUES (\(actorId), 'device.released', \(deviceId),
                        jsonb_build_object('userId', \(ownerId)::text, 'retiredId', \(retired)::text))
                """,
            ])
            return retired
        }
    }

    /// The user who owns `deviceId`; nil when nobody signed in with it yet.
    public func deviceOwner(_ deviceId: String) throws -> String? {
        try database.connection { connection in
            try connection.query("SELECT user_id FROM devices WHERE device_id = \(deviceId)").first?.decode("user_id", as: String?.self)
        }
    }
}
