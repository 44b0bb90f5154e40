import HTTP
import Support

/// Answers browsers' requests for unknown back-office paths with the HTML 404 (and 405)
/// page instead of the device API's JSON envelope.
///
/// Device paths (`/v1/…`) keep their JSON errors untouched.
struct ErrorPages: Middleware {
    let sessions: SessionManager
    let renderer: PageRenderer

    func respond(to request: Request, next: Handler) throws -> Response {
        do {
            return try next(request)
        } catch let failure as HTTPFailure where failure.isUnknownAddress && !request.path.hasPrefix("/v1/") {
            // The viewer's navigation is a courtesy: when the session cannot be read the
            // page is still rendered, without it.
            let session: WebSession? = if case .live(let live)? = try? sessions.lookup(request) { live } else { nil }
            var response = try renderer.error(failure.status, session: session)
            for (name, value) in failure.headers { response.headers[name] = value }
            return response
        }
    }
}

extension HTTPFailure {
    /// No route for the path (404), or not for this method (405).
    fileprivate var isUnknownAddress: Bool {
        switch self {
        case .notFound, .methodNotAllowed: true
        default: false
        }
    }
}
