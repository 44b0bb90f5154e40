import Foundation
public import Postgres
public import SyncEngine
import SyncProtocol

/// Pull reads on PostgreSQL (docs/decisions/0003): records whose latest change is after the
/// cursor, through the caller's scope-key indexes, and scope exits.
public struct PostgresPullReader: PullReader {
    let database: PostgresClient

    public init(database: PostgresClient) {
        self.database = database
    }

    public func snapshot<T>(_ body: (any PullSnapshot) throws -> T) throws -> T {
        try database.transaction { connection in
            // One snapshot for the counter, the records and the exits. Queued, so it travels with
            // `BEGIN` and the counter read instead of costing a round trip of its own.
            try connection.enqueue(["SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY"])
            return try body(PostgresPullSnapshot(connection: connection))
        }
    }
}

/// The reads of one pull on its transaction's snapshot.
struct PostgresPullSnapshot: PullSnapshot {
    let connection: PostgresConnection

    func latestSequence() throws -> Int64 {
        try connection.query("SELECT value FROM sequence_counter")[0].decode(0, as: Int64.self)
    }

    func records(
        after position: Int64, visible: [ScopeKey]?, personal: [String], skipTombstonesUpTo start: Int64?, limit: Int
    ) throws -> [PullRow] {
        try PullRows.records(after: position, visible: visible, personal: personal, skipTombstonesUpTo: start, limit: limit, on: connection)
    }

    func exits(after position: Int64, keys: [ScopeKey], personal: [String], limit: Int) throws -> [PullRow] {
        try PullRows.exits(after: position, keys: keys, personal: personal, limit: limit, on: connection)
    }
}

/// The SQL of pulls.
enum PullRows {
    /// The change object of a record row without its `fieldMeta` (PROTOCOL.md, Pull), written by
    /// concatenating text: the stored `jsonb` is printed once and never parsed again, where
    /// building the object with `json_build_object(…)::jsonb` re-read every payload.
    static let changeJSON = """
        '{"collection":' || to_json(collection)::text || ',"recordId":' || to_json(record_id)::text
            || ',"serverSeq":' || server_seq
            || CASE WHEN deleted_seq IS NULL THEN
                   ',"type":"upsert","payload":' || payload::text || ',"schemaVersion":' || schema_version
                   || CASE WHEN conflict_id IS NULL THEN '' ELSE ',"conflict":{"id":' || to_json(conflict_id)::text || ',"state":"open"}' END
               ELSE ',"type":"delete","tombstone":{"deletedServerSeq":' || deleted_seq || '}'
               END
            || '}'
        """
    static let columns = "server_seq, collection, record_id, \(changeJSON), CASE WHEN deleted_seq IS NULL THEN field_meta::text END"

    /// Records changed after `position` that the caller sees now, ascending; tombstones made
    /// before an initial sync began are skipped (the device never had them). Records of the
    /// `personal` collections are read through `user:` keys only.
    static func records(
        after position: Int64, visible: [ScopeKey]?, personal: [String], skipTombstonesUpTo start: Int64?, limit: Int,
        on connection: PostgresConnection
    ) throws -> [PullRow] {
        let tombstoneFloor = start ?? -1
        guard let keys = visible else {
            return try connection.query(
                """
                SELECT \(unescaped: columns) FROM records
                WHERE server_seq > \(position) AND (deleted_seq IS NULL OR deleted_seq > \(tombstoneFloor))
                ORDER BY server_seq LIMIT \(limit)
                """
            ).map(decode)
        }
        guard !keys.isEmpty else { return [] }
        // One index range scan per key (user_scope or team_scope, then server_seq).
        var sql: [String] = []
        var binds: [String?] = [String(position), String(tombstoneFloor), String(limit)]
        for key in keys {
            binds.append(key.rawValue)
            var condition = "\(key.kind == .user ? "user_scope" : "team_scope") = $\(binds.count)"
            if key.kind != .user, !personal.isEmpty {
                binds.append(personal.postgresText)
                condition += " AND collection <> ALL($\(binds.count)::text[])"
            }
            sql.append(
                """
                (SELECT \(columns) FROM records
                 WHERE \(condition) AND server_seq > $1 AND (deleted_seq IS NULL OR deleted_seq > $2)
                 ORDER BY server_seq LIMIT $3)
                """)
        }
        var seen = Set<RecordKey>()
        return try connection.query(PostgresQuery(sql.joined(separator: " UNION ALL "), binds: binds))
            .map(decode)
            .filter { seen.insert($0.key).inserted }
            .sorted { $0.seq < $1.seq }
            .prefix(limit).map { $0 }
    }

    /// The latest exit after `position` of each record from any of `keys` that the caller no longer sees.
    ///
    /// A record still visible through another of the keys is left out before the limit: its own
    /// row says what changed, and counting it would crowd real exits out of the page while the
    /// records move the position past them.
    static func exits(
        after position: Int64, keys: [ScopeKey], personal: [String], limit: Int, on connection: PostgresConnection
    ) throws -> [PullRow] {
        guard !keys.isEmpty else { return [] }
        let keyTexts = keys.map(\.rawValue)
        return try connection.query(
            """
            SELECT e.seq, e.collection, e.record_id,
                   '{"collection":' || to_json(e.collection)::text || ',"recordId":' || to_json(e.record_id)::text
                       || ',"serverSeq":' || e.seq || ',"type":"remove"}', NULL::text
            FROM (SELECT collection, record_id, max(seq) AS seq FROM scope_exits
                  WHERE scope_key = ANY(\(keyTexts)::text[]) AND seq > \(position)
                    AND NOT (scope_key LIKE 'team:%' AND collection = ANY(\(personal)::text[]))
                  GROUP BY collection, record_id) e
            JOIN records r ON r.collection = e.collection AND r.record_id = e.record_id
            WHERE NOT (CASE WHEN r.collection = ANY(\(personal)::text[]) THEN ARRAY[r.user_scope]
                            ELSE ARRAY[r.user_scope, r.team_scope] END && \(keyTexts)::text[])
            ORDER BY e.seq LIMIT \(limit)
            """
        ).map(decode)
    }

    private static func decode(_ row: PostgresRow) throws -> PullRow {
        PullRow(
            seq: try row.decode(0), key: RecordKey(collection: try row.decode(1), recordId: try row.decode(2)), json: try row.decode(3),
            fieldMeta: try row.decode(4))
    }
}
