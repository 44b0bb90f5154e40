public import Postgres
public import SyncEngine

/// The back-office search on PostgreSQL: one statement, a limited subquery per kind. Ids are
/// matched as `lower(id) LIKE 'prefix%'`, which the `text_pattern_ops` indexes of migration
/// 0013 answer whatever the database's collation; user names, a small table, by substring.
public struct PostgresSearchStore: SearchStore {
    let database: PostgresClient

    public init(database: PostgresClient) {
        self.database = database
    }

    public func search(_ term: SearchTerm, kinds: Set<SearchHit.Kind>, teamId: String?, limit: Int) throws -> [SearchHit] {
        guard !kinds.isEmpty, limit > 0 else { return [] }
        let escaped = Self.likeEscaped(term.text.lowercased())
        let (prefix, contains) = (escaped + "%", "%" + escaped + "%")
        let teamKey = teamId.map { ScopeKey.team($0).rawValue }
        // A record or an order is the team's when it is in the team's scope or in a member's.
        let rows = try database.connection { connection in
            try connection.query(
                """
                (SELECT 'record' AS kind, r.record_id, r.collection, NULL::text AS name, substr(r.team_scope, 6) AS team, NULL::text AS detail
                 FROM records r
                 WHERE \(kinds.contains(.record))::boolean AND lower(r.record_id) LIKE \(prefix)
                   AND (\(teamId)::text IS NULL OR r.team_scope = \(teamKey)
                        OR r.user_scope IN (SELECT 'user:' || id FROM users WHERE team_id = \(teamId)))
                 ORDER BY lower(r.record_id), r.collection LIMIT \(limit))
                UNION ALL
                (SELECT 'device', d.device_id, NULL, u.username, u.team_id, NULL
                 FROM devices d LEFT JOIN users u ON u.id = d.user_id
                 WHERE \(kinds.contains(.device))::boolean AND lower(d.device_id) LIKE \(prefix)
                   AND (\(teamId)::text IS NULL OR u.team_id = \(teamId))
                 ORDER BY lower(d.device_id) LIMIT \(limit))
                UNION ALL
                (SELECT 'user', u.id, NULL, u.username, u.team_id, u.role
                 FROM users u
                 WHERE \(kinds.contains(.user))::boolean AND lower(u.username) LIKE \(contains)
                   AND (\(teamId)::text IS NULL OR u.team_id = \(teamId))
                 ORDER BY lower(u.username) NOT LIKE \(prefix), lower(u.username) LIMIT \(limit))
                UNION ALL
                (SELECT 'order', r.record_id, NULL, r.payload->>'customerId', substr(r.team_scope, 6), r.payload->>'status'
                 FROM records r
                 WHERE \(kinds.contains(.order))::boolean AND r.collection = 'orders' AND r.deleted_seq IS NULL
                   AND (lower(r.record_id) LIKE \(prefix) OR lower(r.payload->>'customerId') LIKE \(prefix))
                   AND (\(teamId)::text IS NULL OR r.team_scope = \(teamKey)
                        OR r.user_scope IN (SELECT 'user:' || id FROM users WHERE team_id = \(teamId)))
                 ORDER BY lower(r.record_id) LIMIT \(limit))
                """)
        }
        return try rows.compactMap { row in
            let (kind, id, collection, name, team, detail) = try row.decode((String, String, String?, String?, String?, String?).self)
            return SearchHit.Kind(rawValue: kind).map {
                SearchHit(kind: $0, id: id, collection: collection, name: name, teamId: team, detail: detail)
            }
        }
    }

    /// `text` as a literal inside a `LIKE` pattern: the escape character (`\`, the default)
    /// and the wildcards `%` and `_` each get a backslash.
    static func likeEscaped(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if character == "\\" || character == "%" || character == "_" { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }
}
