import Foundation
import SQLite
import SyncProtocol

extension LocalStore {
    /// Applies one pull page and stores its cursor in one transaction, so a crash never
    /// leaves the cursor ahead of the records (or behind them for long: a page is idempotent).
    ///
    /// Pending edits stay on top of the new server state. A change older than what the
    /// device already holds (its own push result, folded in) is skipped. The last page of a
    /// re-download drops the records the server no longer sent.
    func applyPullPage(_ page: PullResponse, syncedAt: Date) async throws {
        try await queue.write { db in
            for change in page.changes {
                try Self.apply(change, in: db, syncedAt: syncedAt)
            }
            try db.execute(
                "UPDATE device SET cursor = ?, min_supported_app_version = ? WHERE id = 1", [page.nextCursor, page.minSupportedAppVersion])
            if !page.hasMore, try Self.device(db).isResyncing {
                try Self.finishResync(db)
            }
        }
    }

    /// Starts a full re-download after `CURSOR_EXPIRED`: the cursor goes, every record is
    /// marked unseen, and the outbox is left exactly as it is.
    func beginResync() async throws {
        try await queue.write { db in
            try db.execute("UPDATE device SET cursor = NULL, resyncing = 1 WHERE id = 1")
            try db.execute("UPDATE records SET resync_seen = 0")
        }
    }

    private static func apply(_ change: Change, in db: Database, syncedAt: Date) throws {
        var side = try RecordRows.serverSide(db, change.collection, change.recordId) ?? RecordRows.ServerSide()
        guard change.serverSeq >= side.newestSeq else {
            // Older than what the device holds; still counts as seen by a re-download.
            try db.execute("UPDATE records SET resync_seen = 1 WHERE collection = ? AND record_id = ?", [change.collection, change.recordId])
            return
        }
        switch change.type {
        case .upsert:
            (side.fields, side.seq, side.deletedSeq) = (change.payload ?? [:], change.serverSeq, nil)
            side.conflictId = change.conflict?.state == .open ? change.conflict?.id : nil
            try closeSettledReviews(db, change)
        case .delete:
            (side.fields, side.deletedSeq, side.conflictId) = (nil, change.tombstone?.deletedServerSeq ?? change.serverSeq, nil)
        case .remove:
            side = RecordRows.ServerSide()
        }
        side.syncedAt = syncedAt
        try RecordRows.setServerSide(db, change.collection, change.recordId, side)
    }

    /// A review-queue issue whose entry no longer flags the record was settled (by the office
    /// or on another device): it leaves the device's list.
    private static func closeSettledReviews(_ db: Database, _ change: Change) throws {
        let open = change.conflict?.state == .open ? change.conflict?.id : nil
        for row in try db.rows(
            "SELECT op_id, result_json FROM issues WHERE collection = ? AND record_id = ?", [change.collection, change.recordId])
        {
            let result = try StoredJSON.decode(OpResult.self, try row.decode("result_json"))
            if result.code == .reviewRequired, let id = result.conflictId, id != open {
                try db.execute("DELETE FROM issues WHERE op_id = ?", [try row.decode("op_id", as: String.self)])
            }
        }
    }

    /// Records the re-download did not send are gone from the server's view of this device:
    /// their server side is dropped (pending edits stay and keep their view).
    private static func finishResync(_ db: Database) throws {
        let unseen = try db.rows("SELECT collection, record_id FROM records WHERE resync_seen = 0")
        for row in unseen {
            let (collection, recordId): (String, String) = (try row.decode("collection"), try row.decode("record_id"))
            try RecordRows.setServerSide(db, collection, recordId, RecordRows.ServerSide())
        }
        try db.execute("UPDATE device SET resyncing = 0 WHERE id = 1")
    }
}
