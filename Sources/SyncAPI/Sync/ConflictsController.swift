import HTTP
import Storage
import SyncEngine
import SyncProtocol

/// `GET /v1/conflicts` and `POST /v1/conflicts/{id}/resolve` (PROTOCOL.md, Conflict resolution).
public struct ConflictsController: Sendable {
    let authenticator: Authenticator
    let principals: PrincipalResolver
    let conflicts: ConflictQueries
    let changes: ServerChangeService

    public init(authenticator: Authenticator, principals: PrincipalResolver, conflicts: ConflictQueries, changes: ServerChangeService) {
        self.authenticator = authenticator
        self.principals = principals
        self.conflicts = conflicts
        self.changes = changes
    }

    public func register(on routes: APIRoutes) {
        routes.add(.GET, "/v1/conflicts", handler: list)
        routes.add(.POST, "/v1/conflicts/{id}/resolve", handler: resolve)
    }

    @Sendable func list(_ request: Request) throws -> Response {
        let principal = try principals.principal(for: try authenticator.authenticate(request))
        let state = try request.query["state"].map { text -> ConflictState in
            guard let state = ConflictState(rawValue: text) else {
                throw APIError.validationFailed(field: "state", "state must be open or resolved")
            }
            return state
        }
        return try .json(ConflictListResponse(conflicts: try conflicts.list(for: principal, state: state)))
    }

    @Sendable func resolve(_ request: Request) throws -> Response {
        let principal = try principals.principal(for: try authenticator.authenticate(request))
        let body = try request.decode(ResolveRequest.self)
        return try .json(changes.resolveConflict(try request.parameter("id"), body, by: principal))
    }
}
