import Foundation
public import Postgres
public import SyncEngine
import SyncProtocol

/// Conflict entries on PostgreSQL, for the device API's list and the back-office's review.
public struct PostgresConflictStore: ConflictStore {
    let database: PostgresClient

    public init(database: PostgresClient) {
        self.database = database
    }

    /// The team of conflict `c`'s record (its first `team:` scope key), if it has one.
    static let recordTeam = "(SELECT substr(k, 6) FROM unnest(c.scope_keys) k WHERE k LIKE 'team:%' ORDER BY k LIMIT 1)"

    /// Open conflicts with their author and team, joined once; both queries below filter it.
    private static let openRows = """
        WITH q AS (
          SELECT c.id, c.collection, c.opened_at, c.entry, u.username,
                 COALESCE(\(recordTeam), u.team_id) AS team
          FROM conflicts c LEFT JOIN users u ON u.id = c.author_id
          WHERE c.state = 'open')
        """

    /// The review list's first page starts after this key: `-infinity` precedes every conflict.
    private static let start = PageCursor(["-infinity", ""])

    /// One page of open conflicts, oldest first, optionally only of one collection and one
    /// team: the `limit` conflicts after `after` (from the oldest when nil).
    /// - Throws: `PageCursor.Invalid` when `after` is not a cursor of this list.
    public func openConflicts(collection: String?, teamId: String?, after: PageCursor? = nil, limit: Int = 100) throws -> OpenConflicts {
        let key = try (after ?? Self.start).checked([.timestamp, .text])
        return try database.connection { connection in
            // The page and the facets in one round trip.
            let results = try connection.pipeline([
                """
                \(unescaped: Self.openRows)
                SELECT (entry || '{"deviceRevision": {}, "serverRevision": {}}')::text, username, team,
                       \(unescaped: KeyPart.timestampText("opened_at")), id FROM q
                WHERE (\(collection)::text IS NULL OR collection = \(collection)) AND (\(teamId)::text IS NULL OR team = \(teamId))
                  AND (opened_at, id) > (\(key[0])::timestamptz, \(key[1]))
                ORDER BY opened_at, id LIMIT \(limit + 1)
                """,
                "\(unescaped: Self.openRows) SELECT collection, team, count(*) FROM q GROUP BY 1, 2",
            ])
            let (rows, facets) = (results[0], results[1])
            let counts = try facets.map { row in
                (collection: try row.decode(0, as: String.self), team: try row.decode(1, as: String?.self), count: try row.decode(2, as: Int.self))
            }
            let page = PageOf(try rows.map(Self.decode), limit: limit, row: \.conflict) { PageCursor([$0.key, $0.conflict.entry.id]) }
            var byCollection: [String: Int] = [:]
            for facet in counts where teamId == nil || facet.team == teamId { byCollection[facet.collection, default: 0] += facet.count }
            return OpenConflicts(
                conflicts: page.rows, next: page.next,
                matching: collection.map { byCollection[$0] ?? 0 } ?? byCollection.values.reduce(0, +),
                collectionCounts: byCollection.sorted { $0.key < $1.key }.map { (collection: $0.key, count: $0.value) },
                teams: Set(counts.compactMap(\.team)).sorted(), totalOpen: counts.reduce(0) { $0 + $1.count })
        }
    }

    /// A row of the review list and its sort key's timestamp.
    private static func decode(_ row: PostgresRow) throws -> (conflict: NamedConflict, key: String) {
        let conflict = NamedConflict(
            entry: try JSONColumn.decode(ConflictEntry.self, try row.decode(0, as: String.self)),
            authorName: try row.decode(1, as: String?.self), teamId: try row.decode(2, as: String?.self))
        return (conflict, try row.decode(3, as: String.self))
    }

    /// One conflict, open or resolved, with its author's and resolver's names; nil when unknown.
    public func conflict(id: String) throws -> NamedConflict? {
        let rows = try database.connection { connection in
            try connection.query(
                """
                SELECT c.entry::text, a.username, a.team_id, r.username, \(unescaped: Self.recordTeam)
                FROM conflicts c
                LEFT JOIN users a ON a.id = c.author_id
                LEFT JOIN users r ON r.id = c.entry->'resolution'->>'by'
                WHERE c.id = \(id)
                """)
        }
        guard let row = rows.first else { return nil }
        let recordTeam = try row.decode(4, as: String?.self)
        return NamedConflict(
            entry: try JSONColumn.decode(ConflictEntry.self, try row.decode(0, as: String.self)), authorName: try row.decode(1, as: String?.self),
            teamId: try recordTeam ?? row.decode(2, as: String?.self), resolverName: try row.decode(3, as: String?.self))
    }
}
