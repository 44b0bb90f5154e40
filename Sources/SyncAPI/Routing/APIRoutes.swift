import HTTP

/// Declares device API routes: each handler runs inside `APIError.translating`, so the domain
/// errors it throws answer with their catalogue code and status.
///
/// ```swift
/// let routes = APIRoutes(router: router)
/// routes.add(.GET, "/v1/health") { request in … }
/// ```
public struct APIRoutes: Sendable {
    let router: Router

    public init(router: Router) {
        self.router = router
    }

    /// Adds a route whose handler may throw domain errors.
    public func add(_ method: HTTPMethod, _ path: String, options: RouteOptions = .init(), handler: @escaping Handler) {
        router.add(method, path, options: options) { request in
            try APIError.translating { try handler(request) }
        }
    }
}
