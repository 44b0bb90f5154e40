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
    let connections: ConnectionRegistry
    let spool: SpoolBudget
    /// Shuts down connections past their deadline, a few times per request timeout, until the server stops.
    private let reaper = DispatchQueue(label: "fieldsync.http.deadlines")
    private let isStopping = Atomic<Bool>(false)
    /// Requests between their first access-handler call and MHD's completion notice.
    private let activeRequests = Atomic<Int>(0)

    init(configuration: HTTPServer.Configuration, routes: RouteTable, logger: Logger) {
        self.configuration = configuration
        self.routes = routes
        self.logger = logger
        pool = WorkerPool(maxThreads: configuration.workerThreads, queueLimit: configuration.workerQueueLimit)
        spool = SpoolBudget(totalLimit: configuration.spoolBytesLimit, perOwnerLimit: configuration.spoolBytesPerAddress)
        let connections = ConnectionRegistry(
            limits: .init(
                perAddress: configuration.perAddressConnectionLimit, trustedProxies: configuration.trustedProxies,
                headerTimeout: .seconds(configuration.headerTimeoutSeconds), bodyTimeout: .seconds(configuration.bodyTimeoutSeconds)))
        self.connections = connections
        closeOverdueConnections(every: max(0.05, min(1, Double(min(configuration.headerTimeoutSeconds, configuration.bodyTimeoutSeconds)) / 4)))
    }

    private func closeOverdueConnections(every interval: Double) {
        reaper.asyncAfter(deadline: .now() + interval) { [weak self] in
            guard let self, !self.isStopping.load(ordering: .relaxed) else { return }
            let closed = self.connections.closeOverdue()
            if closed > 0 { self.logger.debug("closed connections past their deadline", metadata: ["http.connections": String(closed)]) }
            self.closeOverdueConnections(every: interval)
        }
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
            connections.headersReceived(connection)
            // Answering before the body is read makes MHD skip it and close the connection.
            if let refusal = begin(context) { return queue(prepare(refusal, connection: connection), for: context) }
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
            connections.requestReceived(connection)
            if let rejection = context.rejection { return answer(context, with: rejection) }
            context.dispatch(request(from: context), refusal: prepare(routes.failures.response(for: Self.busy), connection: connection))
            return .YES
        }
    }

    /// Checks what the headers allow before any body is read: method, header size, a
    /// declared body length over the route's cap, and the route's own `admit` check; the
    /// answer when the request is refused.
    private func begin(_ context: RequestContext) -> Response? {
        do {
            try prepareBody(of: context)
            return nil
        } catch let error as any HTTPResponseError {
            return error.response()
        } catch let failure as HTTPFailure {
            return routes.failures.response(for: failure)
        } catch {
            logger.error("request admission failed", metadata: ["http.path": context.path, "error": "\(error)"])
            return routes.failures.response(for: .internalError)
        }
    }

    private func prepareBody(of context: RequestContext) throws {
        guard let method = HTTPMethod(rawValue: context.methodName) else { throw HTTPFailure.notImplemented }
        let (headers, headerBytes) = ConnectionValues.headers(of: context.connection)
        guard headerBytes <= configuration.maxHeaderBytes else { throw HTTPFailure.headersTooLarge(limit: configuration.maxHeaderBytes) }
        if isShedding(context.path) {
            context.isShed = true
            throw HTTPFailure.busy(retryAfterSeconds: 5)
        }
        let resolution = routes.resolve(method, context.path)
        let options = resolution.options
        let limit = options.maxBodyBytes ?? configuration.maxBodyBytes
        // libmicrohttpd refuses a malformed length itself; a negative one must never reach reserveCapacity.
        let declaredLength = headers["Content-Length"].flatMap { Int($0) }.flatMap { $0 >= 0 ? $0 : nil }
        if let declaredLength, declaredLength > limit { throw HTTPFailure.payloadTooLarge(limit: limit) }
        let remoteAddress = ConnectionValues.remoteAddress(of: context.connection)
        context.head = RequestHead(
            method: method, headers: headers, query: ConnectionValues.query(of: context.connection), remoteAddress: remoteAddress,
            resolution: resolution, bodyLimit: limit)
        if options.streamsBodyToFile {
            let owner = try spoolOwner(of: context, admit: options.admit)
            let reservation = SpoolReservation(bytes: min(declaredLength ?? limit, limit), owner: owner)
            guard spool.reserve(reservation.bytes, for: owner) else { throw HTTPFailure.busy(retryAfterSeconds: 5) }
            context.spoolReservation = reservation
            do {
                context.bodyFile = try TemporaryFile(in: configuration.temporaryDirectory)
            } catch {
                logger.error("cannot create a body file", metadata: ["http.path": context.path, "error": "\(error)"])
                throw HTTPFailure.internalError
            }
        } else if let declaredLength {
            context.body.reserveCapacity(declaredLength)
        }
    }

    /// Whose spool budget a body counts against: the owner the route's `admit` names (which
    /// may refuse the request first), else the client address. Owners and addresses get
    /// distinct prefixes so that neither can spend the other's share.
    private func spoolOwner(of context: RequestContext, admit: (@Sendable (Request) throws -> String?)?) throws -> String {
        if let admit {
            var request = request(from: context)
            if case .matched(_, let parameters) = context.head!.resolution { request.pathParameters = parameters }
            if let owner = try admit(request) { return "owner:" + owner }
        }
        let head = context.head!
        return "address:"
            + ClientAddress.resolve(
                peer: head.remoteAddress, forwardedFor: head.headers.values("X-Forwarded-For"), trustedProxies: configuration.trustedProxies)
    }

    /// Whether `path` is refused to keep the last `reservedConnections` for other paths
    /// (the back-office stays reachable while devices hold every other connection).
    private func isShedding(_ path: String) -> Bool {
        guard configuration.reservedConnections > 0, connections.count > configuration.connectionLimit - configuration.reservedConnections
        else { return false }
        return configuration.sheddablePathPrefixes.contains { path.hasPrefix($0) }
    }

    private func request(from context: RequestContext) -> Request {
        let head = context.head!
        return Request(
            method: head.method, path: context.path, query: head.query, headers: head.headers, body: context.body,
            bodyFile: context.bodyFile?.url, remoteAddress: head.remoteAddress, trustedProxies: configuration.trustedProxies,
            maxJSONDepth: configuration.maxJSONDepth)
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
        // While stopping, or when refused to save connections, answered connections close instead of staying alive.
        if isStopping.load(ordering: .relaxed) || context.isShed { _ = response.addHeader("Connection", "close") }
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

    /// False once shutdown begins (MHD then closes every connection it accepts), or when
    /// `address` already holds its share of connections.
    func admits(_ address: String) -> Bool {
        !isStopping.load(ordering: .relaxed) && connections.admits(address)
    }

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
