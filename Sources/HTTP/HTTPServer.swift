internal import Foundation
public import Support
internal import Synchronization

/// The HTTP/1.1 server: libmicrohttpd parses and manages connections, handlers run on a
/// bounded pool of worker threads (see `docs/decisions/0001-http-threading.md`).
///
/// ```swift
/// let server = HTTPServer(configuration: .init(port: 0), router: router, logger: logger)
/// try server.start()
/// print(server.port)
/// server.shutdown(timeout: .seconds(10))
/// ```
/// Each request gets one `info` access-log line (method, path without query, status,
/// duration); everything else the server logs is `debug`, or `error` for failures.
public final class HTTPServer: Service {
    private enum Lifecycle {
        case idle
        case running(Daemon, ServerCore)
        case stopped
    }

    public let name = "http"
    public let configuration: Configuration
    private let router: Router
    private let logger: Logger
    private let lifecycle = Mutex(Lifecycle.idle)

    /// - Parameters:
    ///   - configuration: Address, limits and threads.
    ///   - router: The routes; its table is snapshotted at `start()`.
    ///   - logger: Receives the access log and failures.
    public init(configuration: Configuration, router: Router, logger: Logger) {
        self.configuration = configuration
        self.router = router
        self.logger = logger
    }

    deinit {
        shutdown(timeout: .zero)
    }

    /// Binds the address and starts serving.
    /// - Throws: `HTTPServerError`: `.addressInUse` when the port is taken, `.bindFailed`,
    ///   `.daemonFailed`, `.invalidConfiguration`, or `.alreadyStarted` on a second call.
    public func start() throws {
        try configuration.validate()
        let port = try lifecycle.withLock { lifecycle in
            guard case .idle = lifecycle else {
                throw HTTPServerError(code: .alreadyStarted, message: "An HTTPServer starts once.")
            }
            let core = ServerCore(configuration: configuration, routes: router.compiled(), logger: logger)
            let daemon = try Daemon(core: core, configuration: configuration)
            lifecycle = .running(daemon, core)
            return daemon.port
        }
        logger.debug("listening", metadata: ["http.host": configuration.host, "http.port": String(port)])
    }

    /// The bound port once started (the real one when `configuration.port` is 0);
    /// before that, the configured port.
    public var port: Int {
        lifecycle.withLock { lifecycle in
            if case .running(let daemon, _) = lifecycle { return daemon.port }
            return configuration.port
        }
    }

    /// Stops gracefully: new connections are refused, streams end, in-flight requests
    /// get up to `timeout` to finish (later ones are answered 503), then every connection
    /// closes. Blocks until done; calling it again (or before `start`) does nothing.
    public func shutdown(timeout: Duration) {
        let deadline = ContinuousClock.now + timeout
        let running = lifecycle.withLock { lifecycle -> (Daemon, ServerCore)? in
            defer { lifecycle = .stopped }
            guard case .running(let daemon, let core) = lifecycle else { return nil }
            return (daemon, core)
        }
        guard let (daemon, core) = running else { return }
        core.stop(daemon, deadline: deadline)
        logger.debug("stopped", metadata: ["http.port": String(daemon.port)])
    }

    /// Stops gracefully, giving in-flight requests `configuration.shutdownTimeout` (see `shutdown(timeout:)`).
    public func stop() {
        shutdown(timeout: configuration.shutdownTimeout)
    }
}
