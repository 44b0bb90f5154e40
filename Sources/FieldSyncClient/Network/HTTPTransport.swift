public import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP request as the SDK sends it.
public struct HTTPRequest: Sendable {
    public var method: String
    public var url: URL
    /// Header fields; names as written.
    public var headers: [String: String]
    public var body: Data?

    public init(method: String, url: URL, headers: [String: String] = [:], body: Data? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// One HTTP answer: status, header fields (names lower-cased) and body.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [String: String]
    public var body: Data

    public init(status: Int, headers: [String: String], body: Data) {
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { _, last in last })
        self.body = body
    }

    /// A header field by name, matched case-insensitively.
    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// How a ``SyncClient`` reaches the server: one call per request.
///
/// ``URLSessionTransport`` is the default. A fleet simulator passes one shared transport to
/// many clients; tests wrap it to cut the network. A transport throws when no HTTP answer
/// arrived (no route, connection refused or reset, timeout); every HTTP status, error or
/// not, is an answer.
///
/// ```swift
/// struct LoggingTransport: HTTPTransport {
///     let base: any HTTPTransport
///     func send(_ request: HTTPRequest) async throws -> HTTPResponse {
///         print(request.method, request.url.path)
///         return try await base.send(request)
///     }
/// }
/// ```
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the server's answer.
    /// - Throws: when the exchange failed before a complete answer arrived.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse
}

/// ``HTTPTransport`` over `URLSession` (FoundationNetworking on Linux).
///
/// It keeps no cookies and no cache: every call carries its bearer token explicitly.
public final class URLSessionTransport: HTTPTransport {
    private let session: URLSession

    /// - Parameter timeout: how long a request may wait for data before it fails.
    public init(timeout: TimeInterval = 60) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.timeoutIntervalForRequest = timeout
        session = URLSession(configuration: configuration)
    }

    deinit { session.invalidateAndCancel() }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        urlRequest.httpBody = request.body
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await exchange(urlRequest)
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        var headers: [String: String] = [:]
        for case (let name as String, let value as String) in http.allHeaderFields { headers[name] = value }
        return HTTPResponse(status: http.statusCode, headers: headers, body: data)
    }

    /// A data task behind a continuation; cancelling the calling task cancels the request.
    private func exchange(_ request: URLRequest) async throws -> (Data, URLResponse) {
        let box = TaskBox()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let task = session.dataTask(with: request) { data, response, error in
                    if let data, let response {
                        continuation.resume(returning: (data, response))
                    } else {
                        continuation.resume(throwing: error ?? URLError(.badServerResponse))
                    }
                }
                box.set(task)
                task.resume()
            }
        } onCancel: {
            box.cancel()
        }
    }
}

/// The data task of one exchange, reachable from the cancellation handler.
private final class TaskBox: @unchecked Sendable {
    // @unchecked: `task` and `isCancelled` are only touched under `lock`.
    private let lock = NSLock()
    private var task: URLSessionDataTask?
    private var isCancelled = false

    func set(_ task: URLSessionDataTask) {
        lock.lock()
        defer { lock.unlock() }
        self.task = task
        if isCancelled { task.cancel() }
    }

    func cancel() {
        lock.lock()
        defer { lock.unlock() }
        isCancelled = true
        task?.cancel()
    }
}
