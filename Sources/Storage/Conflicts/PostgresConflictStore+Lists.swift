import Foundation
import Postgres
public import SyncEngine
public import SyncProtocol

extension PostgresConflictStore {
    /// The entries `principal` may see, oldest first: a field user its own ops' conflicts,
    /// a supervisor its team's, dispatchers and admins all.
    public func list(for principal: Principal, state: ConflictState?, limit: Int = 500) throws -> [ConflictEntry] {
        let stateFilter = state?.rawValue
        let rows = try database.connection { connection -> [PostgresRow] in
            switch principal.role {
            case .dispatcher, .admin:
                return try connection.query(
                    """
                    SELECT entry::text FROM conflicts WHERE (\(stateFilter)::text IS NULL OR state = \(stateFilter))
                    ORDER BY opened_at, id LIMIT \(limit)
                    """)
            case .supervisor:
                let keys = (principal.visibleScopeKeys ?? []).map(\.rawValue)
                return try connection.query(
                    """
                    SELECT entry::text FROM conflicts
                    WHERE scope_keys && \(keys)::text[] AND (\(stateFilter)::text IS NULL OR state = \(stateFilter))
                    ORDER BY opened_at, id LIMIT \(limit)
                    """)
            case .field:
                return try connection.query(
                    """
                    SELECT entry::text FROM conflicts
                    WHERE author_id = \(principal.userId) AND (\(stateFilter)::text IS NULL OR state = \(stateFilter))
                    ORDER BY opened_at, id LIMIT \(limit)
                    """)
            }
        }
        return try rows.map { try JSONColumn.decode(ConflictEntry.self, $0.decode(0, as: String.self)) }
    }
}
