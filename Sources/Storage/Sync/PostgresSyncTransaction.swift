import Foundation
import Postgres
import SyncEngine
import SyncProtocol

/// The engine's calls inside one PostgreSQL transaction; every list is read or written with
/// a single statement (`unnest` of array binds), so a push costs a fixed number of round trips.
final class PostgresSyncTransaction: SyncTransaction {
    private let connection: PostgresConnection
    private let attachments: any FinalizedAttachmentLookup
    /// Whether the written statements insert outbox rows, whose feeds are told after commit.
    private var wroteEvents = false
    /// The draft `prepare` encoded ahead of the lock, for the next `write`.
    private var prepared: PreparedWrites?
    /// The op log rows and records read so far: `write` updates these and inserts the rest.
    private var read = ReadRows()

    init(connection: PostgresConnection, attachments: any FinalizedAttachmentLookup) {
        self.connection = connection
        self.attachments = attachments
    }

    func lockDevice(_ deviceId: String, readingOps opIds: [String]) throws -> DeviceLock {
        // The upsert takes the row lock that serializes this device's pushes until commit; the
        // reads after it, in the same round trip, start once the lock is held.
        var statements: [PostgresQuery] = [
            """
            INSERT INTO devices (device_id) VALUES (\(deviceId))
            ON CONFLICT (device_id) DO UPDATE SET device_id = excluded.device_id
            RETURNING received_through
            """,
            "SELECT pending::text FROM op_log WHERE device_id = \(deviceId) AND status = 'deferred' ORDER BY client_seq",
            ServerSequence.latest,
        ]
        if !opIds.isEmpty {
            // Planned per run: a generic plan settled while op_log was nearly empty is a sequential
            // scan, which costs more with every push until the table is next analyzed.
            let stored: PostgresQuery = """
                SELECT \(unescaped: OpLogRow.columns) FROM op_log WHERE device_id = \(deviceId) AND op_id = ANY(\(opIds)::text[])
                """
            statements.append(stored.plannedPerRun())
        }
        let results = try connection.pipeline(statements)
        let pending = try results[1].map { try JSONColumn.decode(PendingOp.self, $0.decode(0, as: String.self)) }
        let device = DeviceState(deviceId: deviceId, highWater: try results[0][0].decode(0, as: Int64.self), pending: pending)
        let stored = try results.count > 3 ? results[3].map(OpLogRow.decode) : []
        read.noteOps(pending.map { (deviceId, $0.op.opId) } + stored.map { ($0.deviceId, $0.opId) })
        return (device, stored, try results[2][0].decode(0, as: Int64.self))
    }

    func lockRecords(_ keys: [RecordKey]) throws -> [StoredRecord] {
        // FOR UPDATE cannot lock a row that does not exist yet: two pushes creating the same new
        // record would both decide `create` and the later upsert would overwrite the earlier one.
        // A transaction-scoped advisory lock per key covers absent rows too; taken in hash order,
        // so concurrent pushes cannot deadlock on them (the row locks below follow the same keys).
        // Both statements go in one round trip; the second starts once the first holds its locks.
        let collections = keys.map(\.collection)
        let recordIds = keys.map(\.recordId)
        let results = try connection.pipeline([
            """
            SELECT count(pg_advisory_xact_lock(h)) FROM (
                SELECT DISTINCT hashtextextended(c || '/' || r, 0) AS h
                FROM unnest(\(collections)::text[], \(recordIds)::text[]) AS k(c, r)
                ORDER BY h) locks
            """,
            """
            SELECT \(unescaped: RecordRow.columns) FROM records
            WHERE (collection, record_id) IN (SELECT * FROM unnest(\(collections)::text[], \(recordIds)::text[]))
            ORDER BY collection, record_id
            FOR UPDATE
            """,
        ])
        let records = try results[1].map(RecordRow.decode)
        read.noteRecords(records)
        return records
    }

    func records(belowSchemaVersion version: Int, in collections: [String], limit: Int) throws -> [RecordKey] {
        // The order makes the partial index records_schema_version the plan whatever the
        // statistics say: upgraded rows leave its range, so a batch reads only records still to
        // do. A sequential scan would re-read every upgraded row at the table's start each time.
        try connection.query(
            """
            SELECT collection, record_id FROM records
            WHERE schema_version < \(version) AND deleted_seq IS NULL AND collection = ANY(\(collections)::text[])
            ORDER BY schema_version LIMIT \(limit)
            """
        ).map { RecordKey(collection: try $0.decode(0), recordId: try $0.decode(1)) }
    }

    func countRecords(belowSchemaVersion version: Int, in collections: [String]) throws -> Int {
        let count = try connection.query(
            """
            SELECT count(*) FROM records
            WHERE schema_version < \(version) AND deleted_seq IS NULL AND collection = ANY(\(collections)::text[])
            """
        )[0].decode(0, as: Int64.self)
        return Int(count)
    }

    func finalizedAttachments(among ids: [String]) throws -> Set<AttachmentRef> {
        try attachments.finalized(among: ids, on: connection)
    }

    func conflicts(ids: [String]) throws -> [StoredConflict] {
        try connection.query(
            """
            SELECT entry::text, scope_keys FROM conflicts WHERE id = ANY(\(ids)::text[]) ORDER BY id FOR UPDATE
            """
        ).map { row in
            StoredConflict(
                entry: try JSONColumn.decode(ConflictEntry.self, row.decode(0, as: String.self)),
                scopeKeys: try row.decode(1, as: [String].self).map { ScopeKey(rawValue: $0) })
        }
    }

    func reserveSequence(count: Int) throws -> [Int64] {
        try connection.pipeline(ServerSequence.reserve(count))[1][0].decode(0, as: [Int64].self)
    }

    func prepare(_ draft: WriteSet) {
        prepared = PreparedWrites(draft, read: read)
    }

    func write(_ writes: WriteSet) throws {
        // No round trip of their own: the statements go out with the commit (or the caller's next
        // statement).
        let prepared = self.prepared ?? PreparedWrites(writes, read: read)
        self.prepared = nil
        let statements = try prepared.statements(for: writes)
        try connection.enqueue(statements.queries)
        if statements.wroteEvents && !wroteEvents {
            EventOutbox.notifyAfterCommit(on: connection)
            wroteEvents = true
        }
    }
}
