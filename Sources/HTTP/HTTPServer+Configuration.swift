public import Foundation

extension HTTPServer {
    /// Network, limit and threading settings. Every field has a documented default.
    ///
    /// ```swift
    /// var configuration = HTTPServer.Configuration()
    /// configuration.port = 0           // an ephemeral port; read it back from `server.port`
    /// configuration.maxBodyBytes = 4 << 20
    /// ```
    public struct Configuration: Sendable {
        /// The address to listen on (a literal IPv4/IPv6 address or a host name). Default `127.0.0.1`.
        public var host: String
        /// The TCP port; 0 asks the kernel for a free one. Default 8080.
        public var port: Int
        /// libmicrohttpd's network threads (epoll); they never run handlers. Default 2.
        public var mhdThreads: Int
        /// The most handlers running at once, each on its own thread. Default 64.
        public var workerThreads: Int
        /// Requests that may wait for a worker; beyond it the answer is `HTTPFailure.busy` (503). Default 1024.
        public var workerQueueLimit: Int
        /// The body cap unless a route sets its own; beyond it `HTTPFailure.payloadTooLarge` (413). Default 1 MiB.
        public var maxBodyBytes: Int
        /// The cap on all header fields together; beyond it `HTTPFailure.headersTooLarge` (431). Default 16 KiB.
        public var maxHeaderBytes: Int
        /// Concurrent connections accepted. Default 1000.
        public var connectionLimit: Int
        /// Connections one client address may hold at once; more are closed at accept. Trusted
        /// proxies are exempt. 0 for no limit. Default 64.
        public var perAddressConnectionLimit: Int
        /// The last connections under `connectionLimit` kept for paths outside
        /// `sheddablePathPrefixes`: once fewer are free, requests to those prefixes are answered
        /// `HTTPFailure.busy` (503) and their connection closed. Default 100.
        public var reservedConnections: Int
        /// Path prefixes refused when only the reserve is left (FieldSync: the device API). Default none.
        public var sheddablePathPrefixes: [String]
        /// Seconds a client has to send a request's head, from accept or from the end of its
        /// previous request on the connection; then the connection is closed. Default 30.
        public var headerTimeoutSeconds: Int
        /// Seconds a client has to send a request's body once its head is in. Default 300.
        public var bodyTimeoutSeconds: Int
        /// Peer addresses whose `X-Forwarded-For` names the client (`Request.clientAddress`). Default none.
        public var trustedProxies: Set<String>
        /// libmicrohttpd's memory per connection, which holds the request line and headers
        /// (requests beyond it get MHD's own 431) and the read buffer. Keep it well above
        /// `maxHeaderBytes`. libmicrohttpd zeroes it for every request, so bigger costs throughput. Default 32 KiB.
        public var connectionMemoryLimit: Int
        /// Seconds an idle connection stays open. Default 60.
        public var idleTimeoutSeconds: Int
        /// The deepest JSON nesting `Request.decode` accepts. Default 64.
        public var maxJSONDepth: Int
        /// Where bodies of `streamsBodyToFile` routes are written. Default `NSTemporaryDirectory()`.
        public var temporaryDirectory: URL
        /// Bytes all bodies being written to `temporaryDirectory` may take at once (each counts
        /// its declared length, or its route's cap); past it `HTTPFailure.busy` (503). Default 512 MiB.
        public var spoolBytesLimit: Int
        /// The same, for the bodies of one owner: the one a route's `RouteOptions.admit` names,
        /// else the client address. Default 64 MiB.
        public var spoolBytesPerAddress: Int
        /// After a chunked body crosses its cap, how many more bytes are read and dropped
        /// so the client can still be sent the 413; past it the connection is closed.
        /// (libmicrohttpd cannot answer while a body is still arriving.) Default 1 MiB.
        public var overflowDrainBytes: Int
        /// How long in-flight requests may take to finish when the server stops as a `Service`
        /// (`stop()`, or `run()` cancelled). Default 10 seconds.
        public var shutdownTimeout: Duration

        public init(
            host: String = "127.0.0.1", port: Int = 8080, mhdThreads: Int = 2, workerThreads: Int = 64,
            workerQueueLimit: Int = 1024, maxBodyBytes: Int = 1 << 20, maxHeaderBytes: Int = 16 << 10,
            connectionLimit: Int = 1000, perAddressConnectionLimit: Int = 64, reservedConnections: Int = 100,
            sheddablePathPrefixes: [String] = [], headerTimeoutSeconds: Int = 30, bodyTimeoutSeconds: Int = 300,
            trustedProxies: Set<String> = [], connectionMemoryLimit: Int = 32 << 10, idleTimeoutSeconds: Int = 60,
            maxJSONDepth: Int = 64, temporaryDirectory: URL = URL(fileURLWithPath: NSTemporaryDirectory()),
            spoolBytesLimit: Int = 512 << 20, spoolBytesPerAddress: Int = 64 << 20, overflowDrainBytes: Int = 1 << 20,
            shutdownTimeout: Duration = .seconds(10)
        ) {
            self.host = host
            self.port = port
            self.mhdThreads = mhdThreads
            self.workerThreads = workerThreads
            self.workerQueueLimit = workerQueueLimit
            self.maxBodyBytes = maxBodyBytes
            self.maxHeaderBytes = maxHeaderBytes
            self.connectionLimit = connectionLimit
            self.perAddressConnectionLimit = perAddressConnectionLimit
            self.reservedConnections = reservedConnections
            self.sheddablePathPrefixes = sheddablePathPrefixes
            self.headerTimeoutSeconds = headerTimeoutSeconds
            self.bodyTimeoutSeconds = bodyTimeoutSeconds
            self.trustedProxies = trustedProxies
            self.connectionMemoryLimit = connectionMemoryLimit
            self.idleTimeoutSeconds = idleTimeoutSeconds
            self.maxJSONDepth = maxJSONDepth
            self.temporaryDirectory = temporaryDirectory
            self.spoolBytesLimit = spoolBytesLimit
            self.spoolBytesPerAddress = spoolBytesPerAddress
            self.overflowDrainBytes = overflowDrainBytes
            self.shutdownTimeout = shutdownTimeout
        }

        /// Checks ranges eagerly, so a bad value fails at start rather than under load.
        func validate() throws {
            let positive: [(String, Int)] = [
                ("mhdThreads", mhdThreads), ("workerThreads", workerThreads), ("workerQueueLimit", workerQueueLimit),
                ("maxHeaderBytes", maxHeaderBytes), ("connectionLimit", connectionLimit),
                ("connectionMemoryLimit", connectionMemoryLimit), ("maxJSONDepth", maxJSONDepth),
                ("headerTimeoutSeconds", headerTimeoutSeconds), ("bodyTimeoutSeconds", bodyTimeoutSeconds),
                ("spoolBytesLimit", spoolBytesLimit), ("spoolBytesPerAddress", spoolBytesPerAddress),
            ]
            for (name, value) in positive where value < 1 {
                throw HTTPServerError(code: .invalidConfiguration, message: "\(name) must be at least 1, not \(value).")
            }
            guard (0...65535).contains(port) else {
                throw HTTPServerError(code: .invalidConfiguration, message: "port must be 0...65535, not \(port).")
            }
            guard (0..<connectionLimit).contains(reservedConnections), perAddressConnectionLimit >= 0 else {
                throw HTTPServerError(
                    code: .invalidConfiguration, message: "reservedConnections must be below connectionLimit; no limit can be negative.")
            }
            guard maxBodyBytes >= 0, idleTimeoutSeconds >= 0, overflowDrainBytes >= 0 else {
                throw HTTPServerError(code: .invalidConfiguration, message: "Byte limits and the idle timeout cannot be negative.")
            }
        }
    }
}

/// Why the server could not start.
public struct HTTPServerError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure; extensible.
    public struct Code: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let addressInUse = Code(rawValue: "addressInUse")
        public static let bindFailed = Code(rawValue: "bindFailed")
        public static let daemonFailed = Code(rawValue: "daemonFailed")
        public static let alreadyStarted = Code(rawValue: "alreadyStarted")
        public static let invalidConfiguration = Code(rawValue: "invalidConfiguration")
    }

    public let code: Code
    public let message: String

    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "HTTPServerError.\(code.rawValue): \(message)" }
}
