/// A request handler: synchronous, and free to block (it runs on a worker thread).
public typealias Handler = @Sendable (Request) throws -> Response

/// Code that wraps every route: it may inspect or change the request, answer early, or
/// change the response `next` returns.
///
/// ```swift
/// struct RequireJSON: Middleware {
///     func respond(to request: Request, next: Handler) throws -> Response {
///         guard request.method == .GET || request.headers["Content-Type"]?.hasPrefix("application/json") == true else {
///             return .text("Send JSON.", status: 415)
///         }
///         return try next(request)
///     }
/// }
/// ```
public protocol Middleware: Sendable {
    func respond(to request: Request, next: Handler) throws -> Response
}

/// Per-route settings the server applies before the handler runs.
public struct RouteOptions: Sendable {
    /// The body cap for this route; nil uses `HTTPServer.Configuration.maxBodyBytes`.
    public var maxBodyBytes: Int?
    /// Write the body to a temporary file as it arrives instead of buffering it in memory;
    /// the handler reads `Request.bodyFile`.
    public var streamsBodyToFile: Bool
    /// For `streamsBodyToFile` routes: checks the request from its headers alone (the body is
    /// empty), before any body byte is written, and names the owner whose spool budget the
    /// body counts against (nil: the client address). What it throws is the answer, as a
    /// handler's would be. It runs on a network thread, so it must be quick (a cached or
    /// indexed lookup).
    public var admit: (@Sendable (Request) throws -> String?)?

    public init(
        maxBodyBytes: Int? = nil, streamsBodyToFile: Bool = false, admit: (@Sendable (Request) throws -> String?)? = nil
    ) {
        self.maxBodyBytes = maxBodyBytes
        self.streamsBodyToFile = streamsBodyToFile
        self.admit = admit
    }
}
