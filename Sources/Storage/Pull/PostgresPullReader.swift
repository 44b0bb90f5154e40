import Foundation
public import Postgres
public import SyncEngine
import SyncProtocol

/// Pull reads on PostgreSQL (docs/decisions/0003, 0004): records whose latest change is after
/// the cursor's (transaction, serverSeq) and below the snapshot's horizon, through the caller's
/// scope-key indexes, and scope exits.
public struct PostgresPullReader: PullReader {
    let database: PostgresClient

    public init(database: PostgresClient) {
        self.database = database
    }

    public func snapshot<T>(_ body: (any PullSnapshot) throws -> T) throws -> T {
        try database.connection { connection in
            // Writers mid-transaction when the pull arrives hold the horizon below what committed
            // before it: wait for them briefly, so a device sees its own last push.
            let awaited = try ChangeHorizon.awaited(on: connection)
            return try connection.transaction { connection in
                // One snapshot for the horizon, the records and the exits. Queued, so it travels
                // with `BEGIN` and the first read instead of costing a round trip of its own.
                try connection.enqueue(["SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY"])
                return try body(PostgresPullSnapshot(connection: connection, awaitedHorizon: awaited))
            }
        }
    }
}

/// The reads of one pull on its transaction's snapshot.
struct PostgresPullSnapshot: PullSnapshot {
    let connection: PostgresConnection
    /// The horizon reached while waiting for writers before the snapshot was taken.
    let awaitedHorizon: Int64

    func latestSequence() throws -> Int64 {
        try connection.query(ServerSequence.latest)[0].decode(0, as: Int64.self)
    }

    func horizon() throws -> Int64 {
        // Every transaction of this database below it has ended (docs/decisions/0004); the one
        // reached while waiting holds as well, and this snapshot's own can come out lower.
        max(try connection.query(ChangeHorizon.current)[0].decode(0, as: Int64.self), awaitedHorizon)
    }

    func records(
        after position: PullPosition, below horizon: Int64, visible: [ScopeKey]?, personal: [String],
        skipTombstonesUpTo start: PullPosition?, limit: Int
    ) throws -> [PullRow] {
        try PullRows.records(
            after: position, below: horizon, visible: visible, personal: personal, skipTombstonesUpTo: start, limit: limit, on: connection)
    }

    func exits(after position: PullPosition, below horizon: Int64, keys: [ScopeKey], personal: [String], limit: Int) throws -> [PullRow] {
        try PullRows.exits(after: position, below: horizon, keys: keys, personal: personal, limit: limit, on: connection)
    }
}

/// The SQL of pulls.
enum PullRows {
    /// A record row's change object without its `fieldMeta`, and the field metadata of an
    /// upsert: both kept as text when the row is written (migration 0015), so a page is an index
    /// scan and a copy.
    static let columns = "server_seq, xid, collection, record_id, change_json, CASE WHEN deleted_seq IS NULL THEN field_meta END"

    /// Records changed after `position` and below `horizon` that the caller sees now, in position
    /// order; tombstones at or before an initial sync's start are skipped (the device never had
    /// them). Records of the `personal` collections are read through `user:` keys only.
    static func records(
        after position: PullPosition, below horizon: Int64, visible: [ScopeKey]?, personal: [String],
        skipTombstonesUpTo start: PullPosition?, limit: Int, on connection: PostgresConnection
    ) throws -> [PullRow] {
        // $1-$3: the position and the horizon; $4, $5: the tombstone floor; $6: the limit.
        let floor = start ?? PullPosition(xid: 0, seq: -1)
        var binds: [String?] = [
            String(position.xid), String(position.seq), String(horizon), String(floor.xid), String(floor.seq), String(limit),
        ]
        let range = """
            (xid, server_seq) > ($1::xid8, $2::bigint) AND xid < $3::xid8
            AND (deleted_seq IS NULL OR (xid, server_seq) > ($4::xid8, $5::bigint))
            """
        guard let keys = visible else {
            return try connection.query(
                PostgresQuery(
                    "SELECT \(columns) FROM records WHERE \(range) ORDER BY xid, server_seq LIMIT $6", binds: binds
                ).plannedPerRun()
            ).map(decode)
        }
        guard !keys.isEmpty else { return [] }
        // One index range scan per key (user_scope or team_scope, then the position), each leaving
        // out the records an earlier key already reads, so the scans are disjoint and merge in
        // position order: the limit then stops them after `limit` rows in all, where separate
        // limits read up to `limit` rows per key and threw the surplus away.
        // A team key reaches the records of shared collections only.
        // User keys come first. A field user's records are mostly their team's too: after the team's
        // scan, the user's scan read every one of them only to leave it out (1,000 rows fetched
        // for none kept, most of a page's time), where the team's scan now passes over the few
        // among its rows that are the user's.
        let ordered = keys.filter { $0.kind == .user } + keys.filter { $0.kind != .user }
        var sharedOnly = ""
        if !personal.isEmpty {
            binds.append(personal.postgresText)
            sharedOnly = " AND collection <> ALL($\(binds.count)::text[])"
        }
        var earlierUsers: [String] = []
        var earlierTeams: [String] = []
        var sql: [String] = []
        for key in ordered {
            binds.append(key.rawValue)
            var condition = key.kind == .user ? "user_scope = $\(binds.count)" : "team_scope = $\(binds.count)" + sharedOnly
            if !earlierUsers.isEmpty {
                binds.append(earlierUsers.postgresText)
                condition += " AND (user_scope = ANY($\(binds.count)::text[])) IS NOT TRUE"
            }
            if !earlierTeams.isEmpty {
                binds.append(earlierTeams.postgresText)
                condition += " AND (team_scope = ANY($\(binds.count)::text[])\(sharedOnly)) IS NOT TRUE"
            }
            if key.kind == .user { earlierUsers.append(key.rawValue) } else { earlierTeams.append(key.rawValue) }
            sql.append(
                """
                (SELECT \(columns) FROM records
                 WHERE \(condition) AND \(range)
                 ORDER BY xid, server_seq LIMIT $6)
                """)
        }
        // Planned with its values: a generic plan cannot estimate the (xid, seq) range, guesses a
        // row or two per key, and reads every row of a large team's key before sorting them.
        let merged = "SELECT * FROM (\(sql.joined(separator: " UNION ALL "))) page ORDER BY xid, server_seq LIMIT $6"
        return try connection.query(PostgresQuery(merged, binds: binds).plannedPerRun()).map(decode)
    }

    /// The latest exit after `position` of each record from any of `keys` that the caller no longer sees.
    ///
    /// A record still visible through another of the keys is left out before the limit: its own
    /// row says what changed, and counting it would crowd real exits out of the page while the
    /// records move the position past them.
    static func exits(
        after position: PullPosition, below horizon: Int64, keys: [ScopeKey], personal: [String], limit: Int,
        on connection: PostgresConnection
    ) throws -> [PullRow] {
        guard !keys.isEmpty else { return [] }
        let keyTexts = keys.map(\.rawValue)
        let query: PostgresQuery = """
            SELECT e.seq, e.xid, e.collection, e.record_id,
                   '{"collection":' || to_json(e.collection)::text || ',"recordId":' || to_json(e.record_id)::text
                       || ',"serverSeq":' || e.seq || ',"type":"remove"}', NULL::text
            FROM (SELECT DISTINCT ON (collection, record_id) collection, record_id, seq, xid FROM scope_exits
                  WHERE scope_key = ANY(\(keyTexts)::text[])
                    AND (xid, seq) > (\(String(position.xid))::xid8, \(position.seq)) AND xid < \(String(horizon))::xid8
                    AND NOT (scope_key LIKE 'team:%' AND collection = ANY(\(personal)::text[]))
                  ORDER BY collection, record_id, seq DESC) e
            JOIN records r ON r.collection = e.collection AND r.record_id = e.record_id
            WHERE NOT (CASE WHEN r.collection = ANY(\(personal)::text[]) THEN ARRAY[r.user_scope]
                            ELSE ARRAY[r.user_scope, r.team_scope] END && \(keyTexts)::text[])
            ORDER BY e.xid, e.seq LIMIT \(limit)
            """
        return try connection.query(query.plannedPerRun()).map(decode)
    }

    private static func decode(_ row: PostgresRow) throws -> PullRow {
        PullRow(
            seq: try row.decode(0), xid: try row.decode(1), key: RecordKey(collection: try row.decode(2), recordId: try row.decode(3)),
            json: try row.decode(4), fieldMeta: try row.decode(5))
    }
}
