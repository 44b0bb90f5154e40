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
        } catch let error as HTTPError where (error.status == 404 || error.status == 405) && !request.path.hasPrefix("/v1/") {
            // The viewer's navigation is a courtesy: when the session cannot be read the
            // page is still rendered, without it.
            let session: WebSession? = if case .live(let live)? = try? sessions.lookup(request) { live } else { nil }
            var response = try renderer.error(error.status, session: session)
            if let allow = error.headers["Allow"] { response.headers["Allow"] = allow }
            return response
        }
    }
}
