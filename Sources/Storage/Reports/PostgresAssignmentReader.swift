import Foundation
public import Postgres
public import SyncEngine
import SyncProtocol

/// `GET /v1/assignments` on PostgreSQL: the caller's live `assignments` records after a revision.
public struct PostgresAssignmentReader: AssignmentReader {
    let database: PostgresClient

    public init(database: PostgresClient) {
        self.database = database
    }

    /// Up to `limit` assignments visible to `principal` with `serverSeq > since`, ascending.
    ///
    /// Numbers are drawn without a lock (docs/decisions/0004), so a lower one can commit after a
    /// higher one: only numbers that have settled are read, so that a device resuming from the
    /// last revision it got never misses one. While a writer stays mid-transaction longer than
    /// the wait, nothing new is answered.
    public func assignments(for principal: Principal, since: Int64, limit: Int) throws -> [CachedAssignment] {
        let everything = principal.visibleScopeKeys == nil
        let keys = (principal.visibleScopeKeys ?? []).map(\.rawValue).sorted()
        return try database.connection { connection in
            guard let settled = try connection.query(ChangeHorizon.settledServerSeq)[0].decode(0, as: Int64?.self) else { return [] }
            // A statement of its own: its snapshot is taken after the wait, so it sees every settled number.
            return try connection.query(
                """
                SELECT record_id, payload::text, server_seq FROM records
                WHERE collection = 'assignments' AND server_seq > \(since) AND server_seq <= \(settled) AND deleted_seq IS NULL
                  AND (\(everything) OR user_scope = ANY(\(keys)::text[]) OR team_scope = ANY(\(keys)::text[]))
                ORDER BY server_seq LIMIT \(limit)
                """
            ).map { row in
                CachedAssignment(
                    assignmentId: try row.decode(0), payload: try JSONColumn.decode([String: JSONValue].self, try row.decode(1)),
                    revision: try row.decode(2))
            }
        }
    }
}
