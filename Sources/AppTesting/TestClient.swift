public import Foundation
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An HTTP client for tests, over real loopback connections.
///
/// It never follows redirects (a 303 comes back as the 303) and never stores cookies:
/// what a test sends is exactly what it passes.
///
/// ```swift
/// let client = TestClient(baseURL: server.baseURL)
/// let login = try await client.post("/v1/auth/token", json: ["username": "ana", "password": "…", "deviceId": "d1"])
/// let config = try await client.get("/v1/config", token: token)
/// let page = try await client.get("/admin", cookies: login.setCookies)
/// ```
public final class TestClient: Sendable {
    public let baseURL: URL
    private let session: URLSession
    private let collector: ResponseCollector

    public init(baseURL: URL, timeout: TimeInterval = 30) {
        self.baseURL = baseURL
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.timeoutIntervalForRequest = timeout
        collector = ResponseCollector()
        session = URLSession(configuration: configuration, delegate: collector, delegateQueue: nil)
    }

    deinit {
        session.invalidateAndCancel()
    }

    // MARK: - Verbs

    public func get(
        _ path: String, headers: [String: String] = [:], token: String? = nil, cookies: [String: String] = [:]
    )
        async throws -> TestResponse
    {
        try await send("GET", path, body: nil, headers: headers, token: token, cookies: cookies)
    }

    public func delete(
        _ path: String, headers: [String: String] = [:], token: String? = nil, cookies: [String: String] = [:]
    )
        async throws -> TestResponse
    {
        try await send("DELETE", path, body: nil, headers: headers, token: token, cookies: cookies)
    }

    public func post<Body: Encodable>(
        _ path: String, json: Body, headers: [String: String] = [:], token: String? = nil, cookies: [String: String] = [:]
    ) async throws -> TestResponse {
        try await send("POST", path, body: try Self.encode(json), headers: Self.jsonHeaders(headers), token: token, cookies: cookies)
    }

    public func put<Body: Encodable>(
        _ path: String, json: Body, headers: [String: String] = [:], token: String? = nil, cookies: [String: String] = [:]
    ) async throws -> TestResponse {
        try await send("PUT", path, body: try Self.encode(json), headers: Self.jsonHeaders(headers), token: token, cookies: cookies)
    }

    /// Any method with raw body bytes (malformed JSON, forms, chunks).
    /// - Parameters:
    ///   - path: the path and query, e.g. `/v1/sync/pull?limit=5`.
    ///   - token: sent as `Authorization: Bearer <token>`.
    ///   - cookies: sent as one `Cookie` header.
    /// - Throws: `URLError` when the connection fails (refused, reset, timed out).
    public func send(
        _ method: String, _ path: String, body: Data?, headers: [String: String] = [:], token: String? = nil,
        cookies: [String: String] = [:]
    ) async throws -> TestResponse {
        guard let url = URL(string: path, relativeTo: baseURL) else { throw URLError(.badURL) }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.httpBody = body
        request.httpShouldHandleCookies = false
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if !cookies.isEmpty {
            request.setValue(cookies.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "; "), forHTTPHeaderField: "Cookie")
        }
        return try await collector.perform(session.dataTask(with: request))
    }

    private static func encode<Body: Encodable>(_ value: Body) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        encoder.dateEncodingStrategy = .iso8601
        return try encoder.encode(value)
    }

    private static func jsonHeaders(_ headers: [String: String]) -> [String: String] {
        var headers = headers
        if !headers.keys.contains(where: { $0.lowercased() == "content-type" }) { headers["Content-Type"] = "application/json" }
        return headers
    }
}

/// The session's delegate: gathers each task's response and body, refuses redirects and
/// completes the waiting caller when the task ends.
///
/// Delegate callbacks (rather than completion handlers) are used because only they let
/// a task stop at a redirect instead of following it.
private final class ResponseCollector: NSObject, URLSessionDataDelegate, Sendable {
    private struct Pending {
        var response: HTTPURLResponse?
        var body = Data()
        let continuation: CheckedContinuation<TestResponse, any Error>
    }

    private let pending = Mutex<[Int: Pending]>([:])

    func perform(_ task: URLSessionDataTask) async throws -> TestResponse {
        try await withCheckedThrowingContinuation { continuation in
            // Registered before `resume()`, so no callback can arrive for an unknown task.
            pending.withLock { $0[task.taskIdentifier] = Pending(continuation: continuation) }
            task.resume()
        }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        pending.withLock { $0[dataTask.taskIdentifier]?.response = response as? HTTPURLResponse }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        pending.withLock { $0[dataTask.taskIdentifier]?.body.append(data) }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        // nil: the task finishes with the redirect response itself.
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let finished = pending.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        let http = finished.response ?? task.response as? HTTPURLResponse
        guard error == nil, let http else {
            finished.continuation.resume(throwing: error ?? URLError(.badServerResponse))
            return
        }
        var headers: [String: String] = [:]
        for case (let name as String, let value as String) in http.allHeaderFields { headers[name] = value }
        finished.continuation.resume(returning: TestResponse(status: http.statusCode, headers: headers, body: finished.body))
    }
}
