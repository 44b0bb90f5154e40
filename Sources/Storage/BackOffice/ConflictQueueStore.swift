import Foundation
import Postgres
import SyncProtocol

/// A conflict entry with the names the review queue shows next to it.
public struct QueuedConflict: Sendable {
    public var entry: ConflictEntry
    /// The author's user name; nil when the account no longer exists.
    public var authorName: String?
    /// The record's team (its `team:` scope key), else the author's team.
    public var teamId: String?
    /// The user name of whoever resolved it, once resolved.
    public var resolverName: String?
}

/// What the queue page lists: the open conflicts that pass the filter, and counts of
/// every open conflict by collection and team for the filter controls.
public struct ConflictQueue: Sendable {
    /// One page of the filtered open conflicts. Their entries come without the two full
    /// revisions (`deviceRevision` and `serverRevision` are empty): the list never shows them,
    /// and decoding them was most of its cost. `ConflictQueueStore.conflict(id:)` reads one whole.
    public var conflicts: [QueuedConflict]
    /// Where the following page starts; nil on the last page.
    public var next: PageCursor?
    /// Every open conflict that passes the filter, on this page or another.
    public var matching: Int
    /// Open conflicts per collection, among those of the filtered team.
    public var collectionCounts: [(collection: String, count: Int)]
    /// Teams that have open conflicts, sorted.
    public var teams: [String]
    /// Every open conflict, unfiltered.
    public var totalOpen: Int
}

/// Reads the back-office's conflict review queue (dispatchers and administrators see all of it).
public struct ConflictQueueStore: Sendable {
    let database: PostgresClient

    public init(database: PostgresClient) {
        self.database = database
    }

    /// The team of conflict `c`'s record (its first `team:` scope key), if it has one.
    private static let recordTeam = "(SELECT substr(k, 6) FROM unnest(c.scope_keys) k WHERE k LIKE 'team:%' ORDER BY k LIMIT 1)"

    /// Open conflicts with their author and team, joined once; both queries below filter it.
    private static let openConflicts = """
        WITH q AS (
          SELECT c.id, c.collection, c.opened_at, c.entry, u.username,
                 COALESCE(\(recordTeam), u.team_id) AS team
          FROM conflicts c LEFT JOIN users u ON u.id = c.author_id
          WHERE c.state = 'open')
        """

    /// The queue's first page starts after this key: `-infinity` precedes every conflict.
    private static let start = PageCursor(["-infinity", ""])

    /// One page of open conflicts, oldest first, optionally only of one collection and one
    /// team: the `limit` conflicts after `after` (from the oldest when nil).
    /// - Throws: `PageCursor.Invalid` when `after` is not a cursor of this queue.
    public func queue(collection: String?, teamId: String?, after: PageCursor? = nil, limit: Int = 100) throws -> ConflictQueue {
        let key = try (after ?? Self.start).checked([.timestamp, .text])
        return try database.withConnection { connection in
            // The page and the facets in one round trip.
            let results = try connection.pipeline([
                """
                \(unescaped: Self.openConflicts)
                SELECT (entry || '{"deviceRevision": {}, "serverRevision": {}}')::text, username, team,
                       \(unescaped: KeyPart.timestampText("opened_at")), id FROM q
                WHERE (\(collection)::text IS NULL OR collection = \(collection)) AND (\(teamId)::text IS NULL OR team = \(teamId))
                  AND (opened_at, id) > (\(key[0])::timestamptz, \(key[1]))
                ORDER BY opened_at, id LIMIT \(limit + 1)
                """,
                "\(unescaped: Self.openConflicts) SELECT collection, team, count(*) FROM q GROUP BY 1, 2",
            ])
            let (rows, facets) = (results[0], results[1])
            let counts = try facets.map { row in
                (collection: try row.decode(0, as: String.self), team: try row.decode(1, as: String?.self), count: try row.decode(2, as: Int.self))
            }
            let page = PageOf(try rows.map(Self.decode), limit: limit, row: \.conflict) { PageCursor([$0.key, $0.conflict.entry.id]) }
            var byCollection: [String: Int] = [:]
            for facet in counts where teamId == nil || facet.team == teamId { byCollection[facet.collection, default: 0] += facet.count }
            return ConflictQueue(
                conflicts: page.rows, next: page.next,
                matching: collection.map { byCollection[$0] ?? 0 } ?? byCollection.values.reduce(0, +),
                collectionCounts: byCollection.sorted { $0.key < $1.key }.map { (collection: $0.key, count: $0.value) },
                teams: Set(counts.compactMap(\.team)).sorted(), totalOpen: counts.reduce(0) { $0 + $1.count })
        }
    }

    /// A queue row and its sort key's timestamp.
    private static func decode(_ row: PostgresRow) throws -> (conflict: QueuedConflict, key: String) {
        let conflict = QueuedConflict(
            entry: try JSONColumn.decode(ConflictEntry.self, try row.decode(0, as: String.self)),
            authorName: try row.decode(1, as: String?.self), teamId: try row.decode(2, as: String?.self))
        return (conflict, try row.decode(3, as: String.self))
    }

    /// One conflict, open or resolved, with its author's and resolver's names; nil when unknown.
    public func conflict(id: String) throws -> QueuedConflict? {
        let rows = try database.withConnection { connection in
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
        return QueuedConflict(
            entry: try JSONColumn.decode(ConflictEntry.self, try row.decode(0, as: String.self)), authorName: try row.decode(1, as: String?.self),
            teamId: try recordTeam ?? row.decode(2, as: String?.self), resolverName: try row.decode(3, as: String?.self))
    }
}
