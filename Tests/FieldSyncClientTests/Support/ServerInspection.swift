import App
import AppTesting
import Foundation
import Postgres
import SyncAPI
import SyncEngine
import SyncProtocol

/// What the server holds, read with SQL on its own database: the ground truth tests check
/// the devices against.
extension SDKTestBed {
    /// An op as the server logged it.
    struct LoggedOp: Equatable {
        var clientSeq: Int64
        var opId: String
        var recordId: String
        var status: String
        var body: JSONValue
    }

    /// An attachment session of a device.
    struct StoredAttachment: Equatable {
        var attId: String
        var recordId: String
        var status: String
        var sha256: String
    }

    /// The record's payload; nil when the server has no such record or it is deleted.
    func serverRecord(_ collection: String, _ recordId: String) throws -> [String: JSONValue]? {
        try server.core.database.withConnection { connection in
            let rows = try connection.query(
                "SELECT payload::text FROM records WHERE collection = \(collection) AND record_id = \(recordId) AND deleted_seq IS NULL")
            guard let row = rows.first else { return nil }
            return JSONValue(parsing: try row.decode(0, as: String.self))?.objectValue
        }
    }

    /// Every op the server received from `deviceId`, in clientSeq order.
    func loggedOps(deviceId: String) throws -> [LoggedOp] {
        try server.core.database.withConnection { connection in
            try connection.query(
                "SELECT client_seq, op_id, record_id, status, body::text FROM op_log WHERE device_id = \(deviceId) ORDER BY client_seq"
            ).map { row in
                LoggedOp(
                    clientSeq: try row.decode(0), opId: try row.decode(1), recordId: try row.decode(2), status: try row.decode(3),
                    body: JSONValue(parsing: try row.decode(4, as: String.self)) ?? .null)
            }
        }
    }

    /// Every upload session of `deviceId`.
    func attachments(deviceId: String) throws -> [StoredAttachment] {
        try server.core.database.withConnection { connection in
            try connection.query(
                "SELECT att_id, record_id, status, sha256 FROM attachments WHERE device_id = \(deviceId) ORDER BY att_id"
            ).map { row in
                StoredAttachment(attId: try row.decode(0), recordId: try row.decode(1), status: try row.decode(2), sha256: try row.decode(3))
            }
        }
    }

    /// The attachments of `deviceId` of which the server holds at least one chunk.
    func attachmentsWithChunks(deviceId: String) throws -> Set<String> {
        try server.core.database.withConnection { connection in
            Set(
                try connection.query(
                    """
                    SELECT DISTINCT a.att_id FROM attachments a JOIN attachment_chunks c ON c.attachment_id = a.id
                    WHERE a.device_id = \(deviceId)
                    """
                ).map { try $0.decode(0, as: String.self) })
        }
    }

    /// A pull cursor for the same position as `cursor`, but issued `days` ago.
    func agedCursor(_ cursor: String, days: Double) throws -> String {
        var decoded = try server.application.feature(SyncFeature.self)!.cursors.decode(cursor)
        decoded.issuedAt -= Int64(days * 86_400)
        return server.application.feature(SyncFeature.self)!.cursors.encode(decoded)
    }
}

extension SDKTestBed {
    /// The device ids a user signed in from.
    func deviceIds(of userId: String) throws -> [String] {
        try server.core.database.withConnection { connection in
            try connection.query("SELECT device_id FROM devices WHERE user_id = \(userId) ORDER BY device_id").map { try $0.decode(0) }
        }
    }
}
