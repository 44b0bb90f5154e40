internal import CMicroHTTPD
internal import Foundation
internal import Support
internal import Synchronization

/// The request lifecycle on libmicrohttpd's network threads, shared by its callbacks.
///
/// Network threads only parse, count and queue: once a request is complete its handler
/// goes to the worker pool and the connection is suspended until the answer is ready,
/// so a slow handler never stalls other connections.
final class ServerCore: Sendable {
    let configuration: HTTPServer.Configuration
    let routes: RouteTable
    let logger: Logger
    let pool: WorkerPool
    let streams = StreamRegistry()
    private let isStopping = Atomic<Bool>(false)
    /// Requests between their first access-handler call and MHD's completion notice.
    private let activeRequests = Atomic<Int>(0)

    init(configuration: HTTPServer.Configuration, routes: RouteTable, logger: Logger) {
        self.configuration = configuration
        self.routes = routes
        self.logger = logger
        pool = WorkerPool(maxThreads: configuration.workerThreads, queueLimit: configuration.workerQueueLimit)
    }

    // MARK: - Access handler

    /// One call of MHD's access handler: headers in (first call), a piece of body, or the
    /// request complete (then again after a resume).
    func access(
        _ connection: OpaquePointer, url: UnsafePointer<CChar>, method: UnsafePointer<CChar>, upload: UnsafePointer<CChar>?,
        uploadSize: UnsafeMutablePointer<Int>, slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        guard let existing = slot.pointee else {
            let context = RequestContext(
                core: self, connection: connection, methodName: String(cString: method), path: String(cString: url))
            // Released in `completed`, which MHD calls once for every request it presented.
            slot.pointee = Unmanaged.passRetained(context).toOpaque()
            activeRequests.add(1, ordering: .relaxed)
            // Answering before the body is read makes MHD skip it and close the connection.
            if let failure = begin(context) { return answer(context, with: failure) }
            return .YES
        }
        let context = Unmanaged<RequestContext>.fromOpaque(existing).takeUnretainedValue()
        if uploadSize.pointee > 0, let upload {
            let keepOpen = context.receive(upload, count: uploadSize.pointee)
            uploadSize.pointee = 0
            return keepOpen ? .YES : .NO
        }
        switch context.nextStep() {
        case .inFlight:
            return .YES
        case .respond(let prepared):
            return queue(prepared, for: context)
        case .abandoned:
            return answer(context, with: Self.stopping)
        case .dispatch:
            if let rejection = context.rejection { return answer(context, with: rejection) }
            context.dispatch(request(from: context), refusal: prepare(routes.failures.response(for: Self.busy), connection: connection))
            return .YES
        }
    }

    /// Checks what the headers allow before any body is read: method, header size and
    /// a declared body length over the route's cap.
    private func begin(_ context: RequestContext) -> HTTPFailure? {
        guard let method = HTTPMethod(rawValue: context.methodName) else { return .notImplemented }
        let (headers, headerBytes) = ConnectionValues.headers(of: context.connection)
        guard headerBytes <= configuration.maxHeaderBytes else { return .headersTooLarge(limit: configuration.maxHeaderBytes) }
        let resolution = routes.resolve(method, context.path)
        let options = resolution.options
        let limit = options.maxBodyBytes ?? configuration.maxBodyBytes
        // libmicrohttpd refuses a malformed length itself; a negative one must never reach reserveCapacity.
        let declaredLength = headers["Content-Length"].flatMap { Int($0) }.flatMap { $0 >= 0 ? $0 : nil }
        if let declaredLength, declaredLength > limit { return .payloadTooLarge(limit: limit) }
        context.head = RequestHead(
            method: method, headers: headers, query: ConnectionValues.query(of: context.connection),
            remoteAddress: ConnectionValues.remoteAddress(of: context.connection), resolution: resolution, bodyLimit: limit)
        if options.streamsBodyToFile {
            do {
                context.bodyFile = try TemporaryFile(in: configuration.temporaryDirectory)
            } catch {
                logger.error("cannot create a body file", metadata: ["http.path": context.path, "error": "\(error)"])
                return .internalError
            }
        } else if let declaredLength {
            context.body.reserveCapacity(declaredLength)
        }
        return nil
    }

    private func request(from context: RequestContext) -> Request {
        let head = context.head!
        return Request(
            method: head.method, path: context.path, query: head.query, headers: head.headers, body: context.body,
            bodyFile: context.bodyFile?.url, remoteAddress: head.remoteAddress, maxJSONDepth: configuration.maxJSONDepth)
    }

    // MARK: - Answers

    /// Runs on a worker: routes the request and builds the MHD response off the network thread.
    func respond(to request: Request, resolution: Resolution, connection: OpaquePointer) -> MHDResponse? {
        let response = routes.respond(to: request, resolution: resolution, logger: logger)
        return prepare(response, connection: connection)
    }

    private func prepare(_ response: Response, connection: OpaquePointer) -> MHDResponse? {
        MHDResponse.make(response) { StreamState(stream: $0, connection: connection, registry: streams) }
    }

    /// Answers `failure` on the network thread (found before or instead of a handler).
    private func answer(_ context: RequestContext, with failure: HTTPFailure) -> MHD_Result {
        queue(prepare(routes.failures.response(for: failure), connection: context.connection), for: context)
    }

    private func queue(_ prepared: MHDResponse?, for context: RequestContext) -> MHD_Result {
        guard let response = prepared ?? prepare(routes.failures.response(for: .internalError), connection: context.connection) else {
            return .NO
        }
        if prepared == nil {
            logger.error("cannot build the response (unreadable file or invalid header)", metadata: ["http.path": context.path])
        }
        // While stopping, answered connections close instead of staying alive.
        if isStopping.load(ordering: .relaxed) { _ = response.addHeader("Connection", "close") }
        logger.info(
            "request",
            metadata: [
                "http.method": context.methodName, "http.path": context.path, "http.status": String(response.status),
                "duration.ms": Self.milliseconds(since: context.startedAt),
            ])
        return response.queue(on: context.connection) ? .YES : .NO
    }

    /// The answer when the worker queue is full: a moment's wait usually suffices.
    private static let busy = HTTPFailure.busy(retryAfterSeconds: 1)

    /// The answer to requests abandoned at shutdown: a restart takes a few seconds.
    private static let stopping = HTTPFailure.shuttingDown(retryAfterSeconds: 5)

    private static func milliseconds(since start: ContinuousClock.Instant) -> String {
        let elapsed = ContinuousClock.now - start
        return String((elapsed.seconds * 100_000).rounded() / 100)
    }

    // MARK: - Completion and shutdown

    func completed(_ request: UnsafeMutableRawPointer) {
        Unmanaged<RequestContext>.fromOpaque(request).takeRetainedValue().finish()
        activeRequests.subtract(1, ordering: .relaxed)
    }

    /// False once shutdown begins: MHD then closes every connection it accepts.
    var isAcceptingConnections: Bool { !isStopping.load(ordering: .relaxed) }

    /// Graceful stop: refuse new connections, end streams, let in-flight requests finish
    /// until `deadline`, abandon what is left (answered 503), then stop the daemon.
    func stop(_ daemon: Daemon, deadline: ContinuousClock.Instant) {
        isStopping.store(true, ordering: .relaxed)
        streams.endAll()
        if pool.waitUntilIdle(deadline: deadline) {
            waitForActiveRequests(until: deadline)
        }
        // MHD_stop_daemon must not meet a suspended connection: abandoning resumes every
        // connection whose handler is still queued or running, and the short grace lets
        // MHD send those their 503 before it closes everything.
        let abandoned = pool.close()
        for job in abandoned { job.abandon() }
        if !abandoned.isEmpty { waitForActiveRequests(until: .now + .milliseconds(200)) }
        daemon.stop()
    }

    private func waitForActiveRequests(until deadline: ContinuousClock.Instant) {
        while activeRequests.load(ordering: .relaxed) > 0 && ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.005)
        }
    }
}
