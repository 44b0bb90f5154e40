import Foundation
import SQLite
import SyncProtocol

extension LocalStore {
    /// Edits answered `conflict` or `rejected`, then photos the server refused, oldest first.
    func issues() async throws -> [SyncIssue] {
        let (edits, photos) = try await queue.read { db in
            (
                try db.rows("SELECT op_json, result_json FROM issues ORDER BY client_seq"),
                try db.rows("SELECT * FROM photos WHERE state = 'failed' ORDER BY position").map(PhotoRow.init)
            )
        }
        return try edits.map { row in
            SyncIssue(
                op: try StoredJSON.decode(PushOp.self, try row.decode("op_json")),
                result: try StoredJSON.decode(OpResult.self, try row.decode("result_json")))
        } + photos.map { SyncIssue(photo: localPhoto($0), code: $0.problemCode ?? .validationFailed) }
    }

    /// Settles the issue `id`: it leaves the list, and with `.device` its values go out again
    /// as a new edit on the record's current server state.
    func resolve(_ id: String, keeping choice: SyncIssue.Choice, occurredAt: Date, schemaVersion: Int) async throws {
        let resent = try await queue.write { db -> Edit? in
            if let row = try db.row("SELECT op_json, result_json FROM issues WHERE op_id = ?", [id]) {
                try db.execute("DELETE FROM issues WHERE op_id = ?", [id])
                let op = try StoredJSON.decode(PushOp.self, try row.decode("op_json"))
                try RecordRows.recompute(db, op.collection, op.recordId)
                guard choice == .device else { return nil }
                let result = try StoredJSON.decode(OpResult.self, try row.decode("result_json"))
                return Self.retryEdit(op, conflictId: result.conflictId, current: try RecordRows.localRecord(db, op.collection, op.recordId))
            }
            try Self.resolvePhoto(id, keeping: choice, in: db)
            return nil
        }
        if let resent { _ = try await save(resent, occurredAt: occurredAt, schemaVersion: schemaVersion) }
    }

    /// The edit that re-applies `op`'s values now: an update (or a create when the record is
    /// gone), or a delete.
    private static func retryEdit(_ op: PushOp, conflictId: String?, current: LocalRecord?) -> Edit {
        let values = (op.fields ?? [:]).mapValues(\.new)
        let type: OpType = op.type == .delete ? .delete : (current == nil ? .create : .update)
        return Edit(type: type, collection: op.collection, recordId: op.recordId, values: values, resolves: conflictId)
    }

    /// A refused photo: `.device` queues it again, `.server` gives it up (only when no
    /// queued edit still waits for it).
    private static func resolvePhoto(_ attId: String, keeping choice: SyncIssue.Choice, in db: Database) throws {
        guard try db.value(Int.self, "SELECT 1 FROM photos WHERE att_id = ? AND state = 'failed'", [attId]) != nil else {
            throw SyncClientError.issueNotFound(attId)
        }
        if choice == .device {
            try db.execute("UPDATE photos SET state = 'queued', problem = NULL, problem_code = NULL WHERE att_id = ?", [attId])
            return
        }
        let ops = try db.values(String.self, "SELECT op_json FROM outbox").map { try StoredJSON.decode(PushOp.self, $0) }
        guard !ops.contains(where: { $0.dependsOn?.contains(attId) ?? false }) else { throw SyncClientError.photoStillNeeded(attId) }
        // The file goes with the next orphan sweep at open; the row goes now.
        try db.execute("DELETE FROM photos WHERE att_id = ?", [attId])
    }
}
