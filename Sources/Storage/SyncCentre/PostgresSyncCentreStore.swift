import Foundation
public import Postgres
public import SyncEngine
public import SyncProtocol

/// The sync centre on PostgreSQL: devices with op counts, per-device journals and per-record histories.
public struct PostgresSyncCentreStore: SyncCentreStore {
    let database: PostgresClient

    public init(database: PostgresClient) {
        self.database = database
    }

    /// The device list's first page starts after this key: `infinity` comes before every
    /// sync time in its newest-first order.
    private static let firstDevice = PageCursor(["infinity", ""])

    /// One page of devices with their user and op counts, most recently synced first (never
    /// synced last): the `limit` after `after` (from the top when nil); only the team's
    /// members' devices when `teamId` is given.
    /// - Throws: `PageCursor.Invalid` when `after` is not a cursor of this list.
    public func devices(teamId: String?, after: PageCursor? = nil, limit: Int = 200) throws -> PageOf<DeviceSyncSummary> {
        let key = try (after ?? Self.firstDevice).checked([.timestamp, .text])
        return try summaries(teamId: teamId, deviceId: nil, key: key, limit: limit)
    }

    /// One device with its user and op counts; nil when the server does not know it.
    public func device(id: String) throws -> DeviceSyncSummary? {
        try summaries(teamId: nil, deviceId: id, key: Self.firstDevice.values, limit: 1).rows.first
    }

    /// How many devices run each app version (nil: not yet reported), for the team when
    /// `teamId` is given: the list's total and the devices below the minimum, across pages.
    public func appVersionCounts(teamId: String?) throws -> [(version: String?, count: Int)] {
        let rows = try database.connection { connection in
            try connection.query(
                """
                SELECT d.app_version, count(*) FROM devices d LEFT JOIN users u ON u.id = d.user_id
                WHERE (\(teamId)::text IS NULL OR u.team_id = \(teamId)) GROUP BY 1
                """)
        }
        return try rows.map { (version: try $0.decode(0, as: String?.self), count: try $0.decode(1, as: Int.self)) }
    }

    /// Devices with their op counts, after `key` in the list's order; a never-synced device
    /// sorts as synced at `-infinity`.
    ///
    /// The counts are read per device from `op_log_counts` (a few rows each, kept by triggers)
    /// rather than by grouping the op log. The lateral join keeps that a primary-key lookup per
    /// listed device whatever plan PostgreSQL caches for the statement: with the optional
    /// filters its generic plan cannot know how many devices pass them.
    private func summaries(teamId: String?, deviceId: String?, key: [String], limit: Int) throws -> PageOf<DeviceSyncSummary> {
        let synced = "COALESCE(d.last_sync_at, '-infinity')"
        let rows = try database.connection { connection in
            try connection.query(
                """
                SELECT d.device_id, d.user_id, u.username, u.team_id, d.app_version, d.platform, d.last_sync_at,
                       COALESCE(o.applied, 0), COALESCE(o.deferred, 0), COALESCE(o.rejected, 0), COALESCE(o.conflict, 0),
                       COALESCE(\(unescaped: KeyPart.timestampText("d.last_sync_at")), '-infinity'), d.first_seen_at
                FROM devices d
                LEFT JOIN users u ON u.id = d.user_id
                LEFT JOIN LATERAL (SELECT \(unescaped: OpCounts.byStatus) FROM op_log_counts c WHERE c.device_id = d.device_id) o ON true
                WHERE (\(teamId)::text IS NULL OR u.team_id = \(teamId)) AND (\(deviceId)::text IS NULL OR d.device_id = \(deviceId))
                  AND (\(unescaped: synced) < \(key[0])::timestamptz OR (\(unescaped: synced) = \(key[0])::timestamptz AND d.device_id > \(key[1])))
                ORDER BY d.last_sync_at DESC NULLS LAST, d.device_id
                LIMIT \(limit + 1)
                """)
        }
        let fetched = try rows.map { (summary: try Self.summary($0), key: try $0.decode(11, as: String.self)) }
        return PageOf(fetched, limit: limit, row: \.summary) { PageCursor([$0.key, $0.summary.deviceId]) }
    }

    private static func summary(_ row: PostgresRow) throws -> DeviceSyncSummary {
        var summary = DeviceSyncSummary(
            deviceId: try row.decode(0), userId: try row.decode(1), username: try row.decode(2), teamId: try row.decode(3),
            appVersion: try row.decode(4), platform: try row.decode(5), lastSyncAt: try row.decode(6), applied: try row.decode(7),
            deferred: try row.decode(8), rejected: try row.decode(9), conflict: try row.decode(10))
        summary.firstSeenAt = try row.decode(12)
        return summary
    }

    /// The journal's first page starts after this key: `infinity` comes before every op in
    /// its newest-first order.
    private static let journalStart = PageCursor(["infinity", "0", ""])

    /// One page of a device's ops, newest first, optionally of one status: the `limit` ops
    /// after `after` (from the newest when nil); for a team, only the ops its members wrote.
    /// - Throws: `PageCursor.Invalid` when `after` is not a cursor of this journal.
    public func journal(
        deviceId: String, teamId: String? = nil, status: OpStatus?, after: PageCursor? = nil, limit: Int = 200
    ) throws -> PageOf<JournalEntry> {
        let key = try (after ?? Self.journalStart).checked([.timestamp, .integer, .text])
        let statusFilter = status?.rawValue
        let rows = try entries(
            """
            \(unescaped: Self.entryColumns)
            WHERE o.device_id = \(deviceId) AND (\(statusFilter)::text IS NULL OR o.status = \(statusFilter))
              AND (\(teamId)::text IS NULL OR u.team_id = \(teamId))
              AND (o.received_at, o.client_seq, o.op_id) < (\(key[0])::timestamptz, \(key[1])::bigint, \(key[2]))
            ORDER BY o.received_at DESC, o.client_seq DESC, o.op_id DESC LIMIT \(limit + 1)
            """)
        return PageOf(rows, limit: limit, row: \.entry) { PageCursor([$0.received, String($0.entry.clientSeq), $0.entry.opId]) }
    }

    /// The history's first page starts after this key: `-infinity` precedes every op.
    private static let historyStart = PageCursor(["-infinity", "0", "-infinity", "0", "", ""])

    /// One page of the ops that named the record, in the order the server settled them:
    /// the `limit` ops after `after` (from the first when nil). For a team, only when the
    /// record is in the team's scope or the op's author is a member.
    /// - Throws: `PageCursor.Invalid` when `after` is not a cursor of this history.
    public func history(
        collection: String, recordId: String, teamId: String?, after: PageCursor? = nil, limit: Int = 200
    ) throws -> PageOf<JournalEntry> {
        let key = try (after ?? Self.historyStart).checked([.timestamp, .integer, .timestamp, .integer, .text, .text])
        let rows = try entries(
            """
            \(unescaped: Self.entryColumns)
            WHERE o.collection = \(collection) AND o.record_id = \(recordId)
              AND (\(teamId)::text IS NULL OR u.team_id = \(teamId) OR EXISTS (
                SELECT 1 FROM records r JOIN users m ON r.user_scope = 'user:' || m.id OR r.team_scope = 'team:' || m.team_id
                WHERE r.collection = o.collection AND r.record_id = o.record_id AND m.team_id = \(teamId)))
              AND (o.decided_at, COALESCE(o.server_seq, \(unescaped: String(Int64.max))), o.received_at, o.client_seq, o.device_id, o.op_id)
                > (\(key[0])::timestamptz, \(key[1])::bigint, \(key[2])::timestamptz, \(key[3])::bigint, \(key[4]), \(key[5]))
            ORDER BY o.decided_at, o.server_seq NULLS LAST, o.received_at, o.client_seq, o.device_id, o.op_id LIMIT \(limit + 1)
            """)
        return PageOf(rows, limit: limit, row: \.entry) { row in
            let entry = row.entry
            // An op without a server sequence sorts last, as the largest bigint.
            return PageCursor([row.decided, String(entry.serverSeq ?? .max), row.received, String(entry.clientSeq), entry.deviceId, entry.opId])
        }
    }

    /// The record's current state; nil when the server never stored it or, for a team,
    /// when it is outside the team's scope (`team:<id>` or a member's `user:<id>`).
    public func record(collection: String, recordId: String, teamId: String?) throws -> RecordSnapshot? {
        let rows = try database.connection { connection in
            try connection.query(
                """
                SELECT payload::text, server_seq, deleted_seq IS NOT NULL, conflict_id, user_scope, team_scope
                FROM records WHERE collection = \(collection) AND record_id = \(recordId)
                  AND (\(teamId)::text IS NULL OR team_scope = 'team:' || \(teamId)
                    OR user_scope IN (SELECT 'user:' || id FROM users WHERE team_id = \(teamId)))
                """)
        }
        guard let row = rows.first else { return nil }
        let payload = try JSONColumn.decode([String: JSONValue].self, try row.decode(0, as: String.self))
        return RecordSnapshot(
            payload: payload, serverSeq: try row.decode(1), deleted: try row.decode(2), conflictId: try row.decode(3),
            scopeKeys: [try row.decode(4, as: String?.self), try row.decode(5, as: String?.self)].compactMap { $0.map(ScopeKey.init(rawValue:)) })
    }

    private static let entryColumns = """
        SELECT o.device_id, o.op_id, o.client_seq, o.collection, o.record_id, u.username, o.status, o.code, o.result->>'message',
               o.server_seq, o.body::text, COALESCE(to_char(o.occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'), o.body->>'occurredAt'),
               o.received_at, o.decided_at, \(KeyPart.timestampText("o.received_at")), \(KeyPart.timestampText("o.decided_at"))
        FROM op_log o LEFT JOIN users u ON u.id = o.author_id
        """

    /// Ops with the text of their timestamps, as their sort keys hold them.
    private func entries(_ query: PostgresQuery) throws -> [(entry: JournalEntry, received: String, decided: String)] {
        let rows = try database.connection { try $0.query(query) }
        return try rows.map { row in
            let entry = JournalEntry(
                deviceId: try row.decode(0), opId: try row.decode(1), clientSeq: try row.decode(2), collection: try row.decode(3),
                recordId: try row.decode(4), authorName: try row.decode(5), status: OpStatus(rawValue: try row.decode(6)) ?? .rejected,
                code: try row.decode(7, as: String?.self).map(ErrorCode.init(rawValue:)), message: try row.decode(8), serverSeq: try row.decode(9),
                body: try JSONColumn.decode(JSONValue.self, try row.decode(10, as: String.self)), occurredAt: try row.decode(11),
                receivedAt: try row.decode(12), decidedAt: try row.decode(13))
            return (entry, try row.decode(14, as: String.self), try row.decode(15, as: String.self))
        }
    }
}
