import HTTP
import SyncEngine
import Support

/// A signed-in request that passed its role and CSRF checks: what back-office
/// handlers receive.
struct WebContext: Sendable {
    let request: Request
    let session: WebSession
    /// The posted form (empty for GET).
    let form: FormData
}

/// Declares back-office routes, each wrapped in the checks that protect it:
///
/// 1. no live session → `303` to `/login?next=…`;
/// 2. the viewer's role lacks the access the route needs (`view` for GET, `manage` for
///    anything else, per `AccessPolicy`) → the 403 page;
/// 3. a state-changing request without this session's CSRF token → the 403 page, before
///    the handler runs, so nothing changes;
/// 4. errors from the handler → the HTML error page for their status (400 for a list's
///    damaged `after` link, 500 for anything that is not a `PageError` or an `HTTPFailure`, logged).
struct PageRoutes {
    let router: Router
    let sessions: SessionManager
    let renderer: PageRenderer
    let logger: Logger

    /// Adds a page for signed-in users who may open `area` (nil: any signed-in user).
    func add(_ method: HTTPMethod, _ path: String, area: Area?, handler: @escaping @Sendable (WebContext) throws -> Response) {
        let access: Access = method == .GET ? .view : .manage
        router.add(method, path) { [self] request in
            // Failures before the session is known (the database is down) still get an HTML page.
            try Self.rendering(
                errorsOf: { try guarded(request, access, area, handler) }, session: nil, renderer: renderer, logger: logger, path: path)
        }
    }

    /// Runs the session, role and CSRF checks, then the handler.
    private func guarded(
        _ request: Request, _ access: Access, _ area: Area?, _ handler: (WebContext) throws -> Response
    ) throws -> Response {
        let session: WebSession
        switch try sessions.lookup(request) {
        case .none: return .redirect(to: SafeRedirect.loginURL(returningTo: request, expired: false))
        case .ended: return .redirect(to: SafeRedirect.loginURL(returningTo: request, expired: true))
        case .live(let live): session = live
        }
        if let area, !AccessPolicy.permits(session.user.role, access, in: area) {
            return try renderer.error(403, session: session)
        }
        let form = access == .view ? FormData(encoded: "") : FormData(request)
        if access == .manage, !sessions.verifies(form, in: session) {
            return try renderer.error(403, session: session, message: Self.csrfMessage)
        }
        return try Self.rendering(
            errorsOf: { try handler(WebContext(request: request, session: session, form: form)) },
            session: session, renderer: renderer, logger: logger, path: request.path)
    }

    /// Adds a page anyone may open (the sign-in page); errors still render as HTML.
    func addPublic(_ method: HTTPMethod, _ path: String, handler: @escaping @Sendable (Request) throws -> Response) {
        router.add(method, path) { [renderer, logger] request in
            try Self.rendering(errorsOf: { try handler(request) }, session: nil, renderer: renderer, logger: logger, path: path)
        }
    }

    static let csrfMessage =
        "This form has expired or did not come from this back-office, so nothing was changed. Go back, reload the page and try again."

    /// Runs `body`, answering its errors with the HTML error page.
    private static func rendering(
        errorsOf body: () throws -> Response, session: WebSession?, renderer: PageRenderer, logger: Logger, path: String
    ) throws -> Response {
        do {
            return try body()
        } catch let error as PageError {
            return try renderer.error(error.status, session: session)
        } catch let failure as HTTPFailure {
            return try renderer.error(failure.status, session: session)
        } catch is PageCursor.Invalid {
            return try renderer.error(400, session: session, message: Pager.invalidMessage)
        } catch {
            logger.error("back-office page failed", metadata: ["http.path": path, "error": "\(error)"])
            return try renderer.error(500, session: session)
        }
    }
}
