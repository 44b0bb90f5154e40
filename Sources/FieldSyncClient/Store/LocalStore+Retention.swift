import Foundation
import SQLite

extension LocalStore {
    /// Drops synced records last confirmed by the server before `cutoff`, and the uploaded
    /// photos of records no longer on the device. Never touches a record with a queued
    /// edit, an open issue or a photo still to upload.
    /// - Returns: how many records went.
    @discardableResult
    func dropSynced(before cutoff: Date) async throws -> Int {
        let (dropped, files) = try await queue.write { db -> (Int, [String]) in
            try db.execute(
                """
                DELETE FROM records WHERE synced_at < ?
                AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.collection = records.collection AND o.record_id = records.record_id)
                AND NOT EXISTS (SELECT 1 FROM issues i WHERE i.collection = records.collection AND i.record_id = records.record_id)
                AND NOT EXISTS (SELECT 1 FROM photos p WHERE p.collection = records.collection AND p.record_id = records.record_id
                                AND p.state <> 'uploaded')
                """, [cutoff.timeIntervalSince1970])
            let dropped = db.changesCount
            let orphans = """
                FROM photos WHERE state = 'uploaded' AND uploaded_at < ?
                AND NOT EXISTS (SELECT 1 FROM records r WHERE r.collection = photos.collection AND r.record_id = photos.record_id)
                """
            let files = try db.values(String.self, "SELECT file_name " + orphans, [cutoff.timeIntervalSince1970])
            try db.execute("DELETE " + orphans, [cutoff.timeIntervalSince1970])
            return (dropped, files)
        }
        // Files go after the commit: a crash in between leaves orphans, which the next open sweeps.
        for name in files { try? FileManager.default.removeItem(at: photoFile(named: name)) }
        return dropped
    }
}
