/// A request the HTTP layer itself refuses or cannot read: what went wrong, typed, without
/// saying how the answer is worded.
///
/// The router and the server hand every failure to the ``HTTPFailureRenderer`` they were
/// given, which decides the body (FieldSync's device API answers its error envelope with a
/// catalogue code). Handlers see these thrown by `Request.decode` and `Request.parameter`,
/// and middleware may catch them (the back-office answers a 404 with an HTML page).
public enum HTTPFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// No route matches the path.
    case notFound
    /// The path exists, but not with this method; `allowed` lists the ones it accepts.
    case methodNotAllowed(allowed: [HTTPMethod])
    /// A method this server does not support at all.
    case notImplemented
    /// The body is larger than the route's cap.
    case payloadTooLarge(limit: Int)
    /// The header fields together are larger than the cap.
    case headersTooLarge(limit: Int)
    /// The body is not JSON, or nests too deeply.
    case malformedJSON(reason: String)
    /// The body is JSON but does not have the expected shape, or a path parameter is missing;
    /// `field` is a coding path such as `lines[0].qty` (nil for the body as a whole).
    case invalidField(String?, message: String)
    /// Every worker is taken and the queue is full; retry after this many seconds.
    case busy(retryAfterSeconds: Int)
    /// The server is stopping and will not run the request; retry after this many seconds.
    case shuttingDown(retryAfterSeconds: Int)
    /// The handler failed in an unexpected way, or its answer could not be sent.
    case internalError

    /// The status of the answer.
    public var status: Int {
        switch self {
        case .notFound: 404
        case .methodNotAllowed: 405
        case .notImplemented: 501
        case .payloadTooLarge: 413
        case .headersTooLarge: 431
        case .malformedJSON, .invalidField: 400
        case .busy, .shuttingDown: 503
        case .internalError: 500
        }
    }

    /// The headers HTTP itself requires with the answer: `Allow` for 405, `Retry-After` for 503.
    public var headers: HTTPHeaders {
        switch self {
        case .methodNotAllowed(let allowed): ["Allow": allowed.map(\.rawValue).joined(separator: ", ")]
        case .busy(let seconds), .shuttingDown(let seconds): ["Retry-After": String(seconds)]
        default: HTTPHeaders()
        }
    }

    /// Status and kind only: messages may carry user data.
    public var description: String {
        switch self {
        case .notFound: "HTTPFailure(404 not found)"
        case .methodNotAllowed: "HTTPFailure(405 method not allowed)"
        case .notImplemented: "HTTPFailure(501 not implemented)"
        case .payloadTooLarge: "HTTPFailure(413 payload too large)"
        case .headersTooLarge: "HTTPFailure(431 headers too large)"
        case .malformedJSON: "HTTPFailure(400 malformed JSON)"
        case .invalidField: "HTTPFailure(400 invalid field)"
        case .busy: "HTTPFailure(503 busy)"
        case .shuttingDown: "HTTPFailure(503 shutting down)"
        case .internalError: "HTTPFailure(500 internal error)"
        }
    }
}

/// Words the answers to ``HTTPFailure``s; the application decides their bodies.
public protocol HTTPFailureRenderer: Sendable {
    /// The answer to `failure`, carrying its `status` and `headers`.
    func response(for failure: HTTPFailure) -> Response
}

/// The renderer of a router that was given none: the status line as plain text, with the
/// headers the failure requires.
public struct PlainFailureRenderer: HTTPFailureRenderer {
    public init() {}

    public func response(for failure: HTTPFailure) -> Response {
        var response = Response.text(Self.reason(failure.status), status: failure.status)
        for (name, value) in failure.headers { response.headers[name] = value }
        return response
    }

    private static func reason(_ status: Int) -> String {
        switch status {
        case 400: "400 Bad Request"
        case 404: "404 Not Found"
        case 405: "405 Method Not Allowed"
        case 413: "413 Content Too Large"
        case 431: "431 Request Header Fields Too Large"
        case 501: "501 Not Implemented"
        case 503: "503 Service Unavailable"
        default: "500 Internal Server Error"
        }
    }
}
