internal import Support

/// A registered route with its middleware already wrapped around the handler.
struct Route: Sendable {
    let handler: Handler
    let options: RouteOptions
    /// Names of the `{…}` segments, in path order.
    let parameterNames: [String]
}

/// Where a method and path lead.
enum Resolution: Sendable {
    case matched(Route, parameters: [String: String])
    case notFound
    case methodNotAllowed([HTTPMethod])

    /// The options that govern the request body before the handler runs.
    var options: RouteOptions {
        if case .matched(let route, _) = self { return route.options }
        return RouteOptions()
    }
}

/// A segment trie of routes: literal segments first, then one `{parameter}` branch.
private struct RouteNode: Sendable {
    var literals: [String: RouteNode] = [:]
    /// Zero or one child (an array only because a struct cannot hold itself directly).
    var parameter: [RouteNode] = []
    var routes: [HTTPMethod: Route] = [:]

    mutating func insert(_ route: Route, for method: HTTPMethod, at segments: ArraySlice<Substring>) {
        guard let segment = segments.first else {
            routes[method] = route
            return
        }
        if segment.hasPrefix("{") && segment.hasSuffix("}") {
            if parameter.isEmpty { parameter.append(RouteNode()) }
            parameter[0].insert(route, for: method, at: segments.dropFirst())
        } else {
            literals[String(segment), default: RouteNode()].insert(route, for: method, at: segments.dropFirst())
        }
    }

    /// The deepest node with routes for `segments`, preferring literal matches and
    /// backtracking into the parameter branch; `values` collects parameter segments.
    func find(_ segments: ArraySlice<Substring>, values: inout [Substring]) -> RouteNode? {
        guard let segment = segments.first else { return routes.isEmpty ? nil : self }
        if let literal = literals[String(segment)], let node = literal.find(segments.dropFirst(), values: &values) {
            return node
        }
        guard let child = parameter.first else { return nil }
        values.append(segment)
        if let node = child.find(segments.dropFirst(), values: &values) { return node }
        values.removeLast()
        return nil
    }
}

/// The router's immutable snapshot: resolves paths and runs handlers.
final class RouteTable: Sendable {
    private let root: RouteNode
    private let middlewares: [any Middleware]
    /// Words the answers to failures, for the router and for the server's own refusals.
    let failures: any HTTPFailureRenderer

    init(
        routes: [(method: HTTPMethod, pattern: String, options: RouteOptions, handler: Handler)], middlewares: [any Middleware],
        failures: any HTTPFailureRenderer
    ) {
        var root = RouteNode()
        for definition in routes {
            let segments = definition.pattern.split(separator: "/")
            let names = segments.filter { $0.hasPrefix("{") && $0.hasSuffix("}") }.map { String($0.dropFirst().dropLast()) }
            let route = Route(
                handler: Self.wrap(definition.handler, in: middlewares), options: definition.options, parameterNames: names)
            root.insert(route, for: definition.method, at: segments[...])
        }
        self.root = root
        self.middlewares = middlewares
        self.failures = failures
    }

    /// Finds the route for `method` and `path`; HEAD falls back to GET.
    func resolve(_ method: HTTPMethod, _ path: String) -> Resolution {
        var values: [Substring] = []
        guard let node = root.find(path.split(separator: "/")[...], values: &values) else { return .notFound }
        guard let route = node.routes[method] ?? (method == .HEAD ? node.routes[.GET] : nil) else {
            let allowed = HTTPMethod.allCases.filter { node.routes[$0] != nil || ($0 == .HEAD && node.routes[.GET] != nil) }
            return .methodNotAllowed(allowed)
        }
        var parameters: [String: String] = [:]
        for (name, value) in zip(route.parameterNames, values) {
            parameters[name] = String(value)
        }
        return .matched(route, parameters: parameters)
    }

    /// Runs the resolved handler (or the 404/405 failure) inside the middleware and answers its
    /// errors: an `HTTPResponseError` with its response, an `HTTPFailure` as the renderer words
    /// it, anything else logged and answered as a generic 500.
    func respond(to request: Request, resolution: Resolution, logger: Logger) -> Response {
        var request = request
        let handler: Handler
        switch resolution {
        case .matched(let route, let parameters):
            request.pathParameters = parameters
            handler = route.handler
        case .notFound:
            handler = Self.wrap({ _ in throw HTTPFailure.notFound }, in: middlewares)
        case .methodNotAllowed(let allowed):
            handler = Self.wrap({ _ in throw HTTPFailure.methodNotAllowed(allowed: allowed) }, in: middlewares)
        }
        do {
            return try handler(request)
        } catch let error as any HTTPResponseError {
            return error.response()
        } catch let failure as HTTPFailure {
            return failures.response(for: failure)
        } catch {
            logger.error(
                "handler failed", metadata: ["http.method": request.method.rawValue, "http.path": request.path, "error": "\(error)"])
            return failures.response(for: .internalError)
        }
    }

    /// Nests `handler` inside `middlewares`, the first one outermost.
    private static func wrap(_ handler: @escaping Handler, in middlewares: [any Middleware]) -> Handler {
        middlewares.reversed().reduce(handler) { next, middleware in
            { request in try middleware.respond(to: request, next: next) }
        }
    }
}
