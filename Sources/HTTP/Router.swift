public import Support
internal import Synchronization

/// Maps method and path patterns to handlers, with middleware around every route.
///
/// ```swift
/// let router = Router()
/// router.use(RequestIDMiddleware())
/// router.add(.GET, "/v1/attachments/{attId}") { request in
///     try .json(store.session(try request.parameter("attId")))
/// }
/// let response = router.respond(to: Request(method: .GET, path: "/v1/attachments/a1"))
/// ```
/// Build it fully before the server starts: the server takes a snapshot at `start()`.
public final class Router: Sendable {
    private struct Definitions {
        var routes: [(method: HTTPMethod, pattern: String, options: RouteOptions, handler: Handler)] = []
        var middlewares: [any Middleware] = []
        var compiled: RouteTable?
    }

    private let definitions = Mutex(Definitions())
    private let logger: Logger
    private let failures: any HTTPFailureRenderer

    /// - Parameters:
    ///   - logger: Where handler failures (answered with a generic 500) are logged.
    ///   - failures: Words the answers to the HTTP layer's own refusals and to unexpected errors.
    public init(logger: Logger = Logger(label: "fieldsync.http"), failures: any HTTPFailureRenderer = PlainFailureRenderer()) {
        self.logger = logger
        self.failures = failures
    }

    /// Registers `handler` for `method` on `pattern`, e.g. `/v1/attachments/{attId}/chunks/{index}`.
    /// A later registration of the same method and pattern replaces the earlier one.
    public func add(_ method: HTTPMethod, _ pattern: String, options: RouteOptions = .init(), handler: @escaping Handler) {
        definitions.withLock {
            $0.routes.append((method, pattern, options, handler))
            $0.compiled = nil
        }
    }

    /// Every registered method and pattern, in registration order.
    public var routes: [(method: HTTPMethod, pattern: String)] {
        definitions.withLock { $0.routes.map { ($0.method, $0.pattern) } }
    }

    /// Adds middleware around every route (and around the 404/405 answers); the first
    /// added is the outermost.
    public func use(_ middleware: any Middleware) {
        definitions.withLock {
            $0.middlewares.append(middleware)
            $0.compiled = nil
        }
    }

    /// Routes `request` in-process, as the server does: 404 and 405 (with `Allow`) rendered by the
    /// failure renderer, HEAD served by GET, a thrown `HTTPResponseError` answered with its own
    /// response, an `HTTPFailure` rendered, and any other error as a logged, generic 500.
    public func respond(to request: Request) -> Response {
        let table = compiled()
        return table.respond(to: request, resolution: table.resolve(request.method, request.path), logger: logger)
    }

    /// The immutable table the server routes with; cached until the next `add` or `use`.
    func compiled() -> RouteTable {
        definitions.withLock { definitions in
            if let table = definitions.compiled { return table }
            let table = RouteTable(routes: definitions.routes, middlewares: definitions.middlewares, failures: failures)
            definitions.compiled = table
            return table
        }
    }
}
