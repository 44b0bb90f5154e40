public import HTTP
import SyncEngine

/// Declares device API routes. A device route authenticates its caller (and passes the sync
/// gate when it is a sync call) once, before its handler, which receives a ``DeviceContext``.
/// Every handler runs inside `APIError.translating`, so the domain errors it throws answer
/// with their catalogue code and status.
///
/// ```swift
/// routes.add(.POST, "/v1/sync/push", admission: .sync) { device in
///     let principal = try device.principal()
///     …
/// }
/// routes.addPublic(.GET, "/v1/health") { request in … }
/// ```
public struct APIRoutes: Sendable {
    let router: Router
    let access: DeviceAccess

    public init(router: Router, access: DeviceAccess) {
        self.router = router
        self.access = access
    }

    /// Adds a route of a device: `admission` is checked before `handler` runs. A route whose
    /// body streams to disk also authenticates from its headers, before any body byte is
    /// written, and spools within its user's budget.
    public func add(
        _ method: HTTPMethod, _ path: String, admission: DeviceAdmission, options: RouteOptions = .init(),
        handler: @escaping @Sendable (DeviceContext) throws -> Response
    ) {
        var options = options
        if options.streamsBodyToFile {
            options.admit = { [authenticator = access.authenticator] request in
                try APIError.translating { try authenticator.authenticate(request).user.id }
            }
        }
        router.add(method, path, options: options) { [access] request in
            try APIError.translating { try handler(try access.admit(request, admission)) }
        }
    }

    /// Adds a route anyone may call (health, sign-in).
    public func addPublic(_ method: HTTPMethod, _ path: String, options: RouteOptions = .init(), handler: @escaping Handler) {
        router.add(method, path, options: options) { request in
            try APIError.translating { try handler(request) }
        }
    }
}
