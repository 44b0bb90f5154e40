import Foundation
public import Postgres
public import SyncEngine
import SyncProtocol

/// The back-office's assignment lists on PostgreSQL: records by collection and scope, by id.
public struct PostgresAssignmentBoard: AssignmentBoard {
    let database: PostgresClient

    public init(database: PostgresClient) {
        self.database = database
    }

    /// Before the first record id: the empty text sorts first.
    private static let first = PageCursor([""])

    public func records(_ filter: AssignmentFilter, after: PageCursor?, limit: Int) throws -> PageOf<AssignedRecord> {
        let key = try (after ?? Self.first).checked([.text])
        let team = filter.teamId.map { ScopeKey.team($0).rawValue }
        let user = filter.assigneeId.map { ScopeKey.user($0).rawValue }
        let rows = try database.connection { connection in
            try connection.query(
                """
                \(unescaped: Self.columns)
                WHERE r.collection = \(filter.collection) AND r.deleted_seq IS NULL AND r.record_id > \(key[0])
                  AND (\(team)::text IS NULL OR r.team_scope = \(team)) AND (\(user)::text IS NULL OR r.user_scope = \(user))
                ORDER BY r.record_id LIMIT \(limit + 1)
                """)
        }
        return PageOf(try rows.map(Self.decode), limit: limit, row: { $0 }, key: { PageCursor([$0.key.recordId]) })
    }

    public func record(_ key: RecordKey) throws -> AssignedRecord? {
        let rows = try database.connection { connection in
            try connection.query("\(unescaped: Self.columns) WHERE r.collection = \(key.collection) AND r.record_id = \(key.recordId)")
        }
        return try rows.first.map(Self.decode)
    }

    public func teamExists(_ teamId: String) throws -> Bool {
        try database.connection { connection in
            try connection.query("SELECT EXISTS (SELECT 1 FROM teams WHERE id = \(teamId))")[0].decode(0, as: Bool.self)
        }
    }

    private static let columns = """
        SELECT r.collection, r.record_id, r.payload::text, r.server_seq, u.username, r.deleted_seq IS NOT NULL, r.updated_at
        FROM records r LEFT JOIN users u ON 'user:' || u.id = r.user_scope
        """

    private static func decode(_ row: PostgresRow) throws -> AssignedRecord {
        AssignedRecord(
            key: RecordKey(collection: try row.decode(0), recordId: try row.decode(1)),
            payload: try JSONColumn.decode([String: JSONValue].self, try row.decode(2)), serverSeq: try row.decode(3),
            assigneeName: try row.decode(4), isDeleted: try row.decode(5), updatedAt: try row.decode(6))
    }
}
