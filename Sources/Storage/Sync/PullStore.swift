import Foundation
import Postgres
import SyncEngine
import SyncProtocol

/// One page of a pull, before the cursor is signed.
public struct PullPage: Sendable {
    public var changes: [Change]
    /// Where the next page starts.
    public var position: Int64
    /// Kept in the next cursor while the initial sync has not passed its start.
    public var initialSyncStart: Int64?
    public var hasMore: Bool
    /// The highest committed sequence number when the page was read.
    public var newServerSeq: Int64
}

/// Reads pull pages (docs/decisions/0003): records whose latest change is after the cursor,
/// through the caller's scope-key indexes, merged with scope exits that become `remove`.
public struct PullStore: Sendable {
    let database: PostgresClient

    public init(database: PostgresClient) {
        self.database = database
    }

    /// - Parameters:
    ///   - position: the cursor position (0 for an initial sync).
    ///   - initialSyncStart: the sequence number an initial sync began at; nil in delta mode.
    ///     Pass nil with position 0 to start an initial sync now.
    ///   - limit: at most this many changes (already clamped).
    public func page(for principal: Principal, after position: Int64, initialSyncStart: Int64?, startInitialSync: Bool, limit: Int) throws -> PullPage {
        try database.withTransaction { connection in
            // One snapshot for the counter, the records and the exits.
            try connection.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            let newServerSeq = try connection.query("SELECT value FROM sequence_counter")[0].decode(0, as: Int64.self)
            let start = startInitialSync ? newServerSeq : initialSyncStart
            let visible = principal.visibleScopeKeys.map { $0.sorted() }
            let records = try Self.records(after: position, visible: visible, skipTombstonesUpTo: start, limit: limit + 1, on: connection)
            let exits = try visible.map { keys in
                try Self.exits(after: max(position, start ?? 0), keys: keys, limit: limit + 1, on: connection)
            } ?? []
            var rows = records.map { (seq: $0.serverSeq, change: $0.pullChange()) }
                + exits.map { (seq: $0.seq, change: $0.record.removal(at: $0.seq)) }
            rows.sort { $0.seq < $1.seq }
            let consumed = rows.prefix(limit)
            var latest: [RecordKey: Change] = [:]
            for row in consumed { latest[RecordKey(collection: row.change.collection, recordId: row.change.recordId)] = row.change }
            let hasMore = rows.count > limit
            var next = consumed.last?.seq ?? position
            if !hasMore, let start { next = max(next, start) }
            return PullPage(
                changes: latest.values.sorted { $0.serverSeq < $1.serverSeq }, position: next,
                initialSyncStart: start.flatMap { next < $0 ? $0 : nil }, hasMore: hasMore, newServerSeq: newServerSeq)
        }
    }

    /// Records changed after `position` that the caller sees now, ascending; tombstones made
    /// before an initial sync began are skipped (the device never had them).
    private static func records(
        after position: Int64, visible: [ScopeKey]?, skipTombstonesUpTo start: Int64?, limit: Int, on connection: PostgresConnection
    ) throws -> [StoredRecord] {
        let tombstoneFloor = start ?? -1
        guard let keys = visible else {
            return try connection.query("""
                SELECT \(unescaped: RecordRow.columns) FROM records
                WHERE server_seq > \(position) AND (deleted_seq IS NULL OR deleted_seq > \(tombstoneFloor))
                ORDER BY server_seq LIMIT \(limit)
                """).map(RecordRow.decode)
        }
        guard !keys.isEmpty else { return [] }
        // One index range scan per key (user_scope or team_scope, then server_seq).
        var sql: [String] = []
        var binds: [String?] = [String(position), String(tombstoneFloor), String(limit)]
        for key in keys {
            let column = key.rawValue.hasPrefix("user:") ? "user_scope" : "team_scope"
            binds.append(key.rawValue)
            sql.append("""
                (SELECT \(RecordRow.columns) FROM records
                 WHERE \(column) = $\(binds.count) AND server_seq > $1 AND (deleted_seq IS NULL OR deleted_seq > $2)
                 ORDER BY server_seq LIMIT $3)
                """)
        }
        var seen = Set<RecordKey>()
        return try connection.query(PostgresQuery(sql.joined(separator: " UNION ALL "), binds: binds))
            .map(RecordRow.decode)
            .filter { seen.insert($0.key).inserted }
            .sorted { $0.serverSeq < $1.serverSeq }
            .prefix(limit).map { $0 }
    }

    /// Scope exits after `position` for the caller's keys of records it no longer sees, with the
    /// record's current state.
    ///
    /// A record still visible through another of the keys is left out before the limit: its own
    /// row says what changed, and counting it would crowd real exits out of the page while the
    /// records move the position past them.
    private static func exits(
        after position: Int64, keys: [ScopeKey], limit: Int, on connection: PostgresConnection
    ) throws -> [(seq: Int64, record: StoredRecord)] {
        guard !keys.isEmpty else { return [] }
        let keyTexts = keys.map(\.rawValue)
        let prefixed = RecordRow.columns.split(separator: ",").map { "r." + $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        return try connection.query("""
            SELECT e.seq, \(unescaped: prefixed.joined(separator: ", "))
            FROM (SELECT collection, record_id, max(seq) AS seq FROM scope_exits
                  WHERE scope_key = ANY(\(keyTexts)::text[]) AND seq > \(position)
                  GROUP BY collection, record_id) e
            JOIN records r ON r.collection = e.collection AND r.record_id = e.record_id
            WHERE NOT (ARRAY[r.user_scope, r.team_scope] && \(keyTexts)::text[])
            ORDER BY e.seq LIMIT \(limit)
            """).map { row in (try row.decode(0, as: Int64.self), try RecordRow.decode(row, offset: 1)) }
    }
}
