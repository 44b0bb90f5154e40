import Foundation
import SQLite
import SyncProtocol

/// What one push's results did to the outbox.
struct PushTally: Sendable, Equatable {
    var acknowledged = 0
    var deferred = 0
    var issues = 0
    /// Ops the server answered `retry`: the push must be repeated later.
    var retry = 0
}

extension LocalStore {
    /// The next ops to push: the oldest `limit` ops written against one schema version, in
    /// clientSeq order, starting after `afterSeq`.
    func outboxBatch(after afterSeq: Int64, limit: Int) async throws -> (ops: [PushOp], schemaVersion: Int) {
        try await queue.read { db in
            let rows = try db.rows(
                "SELECT op_json, schema_version FROM outbox WHERE client_seq > ? ORDER BY client_seq LIMIT ?", [afterSeq, limit])
            guard let version = try rows.first?.decode("schema_version", as: Int.self) else { return ([], 0) }
            let sameVersion = try rows.prefix { try $0.decode("schema_version", as: Int.self) == version }
            return (try sameVersion.map { try StoredJSON.decode(PushOp.self, try $0.decode("op_json")) }, version)
        }
    }

    /// Applies the server's answers to the pushed ops in one transaction: applied ops leave
    /// the outbox and fold into the server's side of their record, deferred ones stay,
    /// conflicts and rejections become issues, `retry` ones stay for the next attempt.
    func apply(_ results: [OpResult], to ops: [PushOp], syncedAt: Date) async throws -> PushTally {
        try await queue.write { db in
            var tally = PushTally()
            let byId = Dictionary(results.map { ($0.opId, $0) }, uniquingKeysWith: { first, _ in first })
            for op in ops {
                guard let result = byId[op.opId] else { continue }
                try Self.apply(result, to: op, in: db, syncedAt: syncedAt, tally: &tally)
                try RecordRows.recompute(db, op.collection, op.recordId)
            }
            return tally
        }
    }

    private static func apply(_ result: OpResult, to op: PushOp, in db: Database, syncedAt: Date, tally: inout PushTally) throws {
        switch result.status {
        case .applied:
            try db.execute("DELETE FROM outbox WHERE op_id = ?", [op.opId])
            try fold(op, result, in: db, syncedAt: syncedAt)
            tally.acknowledged += 1
        case .deferred:
            try db.execute("UPDATE outbox SET state = 'deferred' WHERE op_id = ?", [op.opId])
            tally.deferred += 1
        case .conflict, .rejected:
            try db.execute("DELETE FROM outbox WHERE op_id = ?", [op.opId])
            try db.execute(
                "INSERT OR REPLACE INTO issues (op_id, client_seq, collection, record_id, op_json, result_json) VALUES (?, ?, ?, ?, ?, ?)",
                [op.opId, op.clientSeq, op.collection, op.recordId, try StoredJSON.text(op), try StoredJSON.text(result)])
            try fold(op, result, in: db, syncedAt: syncedAt)
            tally.issues += 1
        case .retry:
            tally.retry += 1
        }
    }

    /// Brings the server's side of the op's record up to what the result says the server
    /// now holds, unless a pull already brought a newer state.
    private static func fold(_ op: PushOp, _ result: OpResult, in db: Database, syncedAt: Date) throws {
        var side = try RecordRows.serverSide(db, op.collection, op.recordId) ?? RecordRows.ServerSide()
        let resultSeq = result.serverSeq ?? result.tombstoneSeq ?? (result.details?["serverSeq"]?.intValue)
        guard let resultSeq, resultSeq >= side.newestSeq else { return }
        switch (result.status, result.code) {
        case (.applied, _) where op.type == .delete:
            (side.fields, side.deletedSeq) = (nil, resultSeq)
        case (.applied, _):
            side.fields = RecordOverlay.merge(op.fields ?? [:], into: side.fields ?? [:])
        case (.conflict, .recordExists?):
            side.fields = result.details?["serverPayload"]?.objectValue ?? side.fields
        case (.conflict, _):
            var fields = RecordOverlay.merge(op.fields ?? [:], into: side.fields ?? [:], only: Set(result.appliedFields ?? []))
            for conflict in result.conflicts ?? [] where conflict.winner != .client {
                fields[conflict.field] = conflict.serverCurrent
            }
            side.fields = fields
        case (.rejected, .recordDeleted?):
            (side.fields, side.deletedSeq) = (nil, resultSeq)
        case (.rejected, _):
            return
        case (.deferred, _), (.retry, _):
            return
        }
        if result.code == .reviewRequired { side.conflictId = result.conflictId }
        side.seq = side.fields == nil ? side.seq : resultSeq
        side.syncedAt = syncedAt
        try RecordRows.setServerSide(db, op.collection, op.recordId, side)
    }
}
