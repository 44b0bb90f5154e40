import HTTP
public import SyncEngine
import SyncProtocol

/// `GET /v1/conflicts` and `POST /v1/conflicts/{id}/resolve` (PROTOCOL.md, Conflict resolution).
public struct ConflictsController: Sendable {
    let conflicts: any ConflictStore
    let changes: ServerChangeService

    public init(conflicts: any ConflictStore, changes: ServerChangeService) {
        self.conflicts = conflicts
        self.changes = changes
    }

    public func register(on routes: APIRoutes) {
        routes.add(.GET, "/v1/conflicts", admission: .authenticated, handler: list)
        routes.add(.POST, "/v1/conflicts/{id}/resolve", admission: .authenticated, handler: resolve)
    }

    @Sendable func list(_ device: DeviceContext) throws -> Response {
        let principal = try device.principal()
        let state = try device.request.query["state"].map { text -> ConflictState in
            guard let state = ConflictState(rawValue: text) else {
                throw APIError.validationFailed(field: "state", "state must be open or resolved")
            }
            return state
        }
        return try .json(ConflictListResponse(conflicts: try conflicts.list(for: principal, state: state)))
    }

    @Sendable func resolve(_ device: DeviceContext) throws -> Response {
        let principal = try device.principal()
        let body = try device.request.decode(ResolveRequest.self)
        return try .json(changes.resolveConflict(try device.request.parameter("id"), body, by: principal))
    }
}
