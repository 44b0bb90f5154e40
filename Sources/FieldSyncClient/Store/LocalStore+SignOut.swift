import Foundation
import SQLite
import SyncProtocol

extension LocalStore {
    /// Everything that has not reached the server: queued edits, edits in conflict or
    /// rejected (the device's revision exists only here), and photos not uploaded.
    func unsyncedWork() async throws -> DiscardedWork {
        let (ops, photos) = try await queue.read { db in
            (
                try db.values(String.self, "SELECT op_json FROM outbox UNION ALL SELECT op_json FROM issues"),
                try db.rows("SELECT * FROM photos WHERE state <> 'uploaded' ORDER BY position").map(PhotoRow.init)
            )
        }
        let changes = try ops.map { try StoredJSON.decode(PushOp.self, $0) }.sorted { $0.clientSeq < $1.clientSeq }.map { op in
            DiscardedWork.Change(collection: op.collection, recordId: op.recordId, type: op.type, values: (op.fields ?? [:]).mapValues(\.new))
        }
        return DiscardedWork(changes: changes, photos: photos.map(localPhoto))
    }

    /// Removes the user's data and session. The device id and the clientSeq counter stay (the
    /// server knows the device by them, and a number it has seen must never come back), unless
    /// `newDeviceId` is given: then the device starts over under it, from clientSeq 1.
    func wipeUserData(newDeviceId: String?) async throws {
        let files = try await queue.write { db -> [String] in
            let files = try db.values(String.self, "SELECT file_name FROM photos")
            for table in ["records", "outbox", "issues", "photos"] { try db.execute("DELETE FROM \(table)") }
            try db.execute(
                """
                UPDATE device SET token = NULL, user_json = NULL, session = 'signed_out', cursor = NULL, resyncing = 0,
                last_synced_at = NULL WHERE id = 1
                """)
            if let newDeviceId {
                try db.execute("UPDATE device SET device_id = ?, last_client_seq = 0 WHERE id = 1", [newDeviceId])
            }
            return files
        }
        for name in files { try? FileManager.default.removeItem(at: photoFile(named: name)) }
    }
}
