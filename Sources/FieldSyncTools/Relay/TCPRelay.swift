import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A user-space TCP relay on loopback that shapes what passes through it: each connection
/// accepted on `port` is joined to the target port through one link of the shape's rate and
/// delay, which all connections share (its rate is the link's, not each connection's);
/// connections are cut at random mid-transfer when the shape asks for it. (No kernel traffic
/// control needed.)
final class TCPRelay: Sendable {
    let port: Int
    let shape: LinkShape
    private let listener: Int32
    private let targetPort: Int
    private let counters = Mutex(Counters())
    private let stopping = Atomic(false)
    private let upLink: LinkClock
    private let downLink: LinkClock

    /// Bytes relayed each way, connections and cuts.
    struct Counters: Sendable {
        var bytesUp: Int64 = 0
        var bytesDown: Int64 = 0
        var connections = 0
        var cuts = 0
    }

    /// Listens on a free loopback port; call `start()` to accept.
    /// - Throws: `RelayError` when the socket cannot be set up.
    init(targetPort: Int, shape: LinkShape, listenPort: Int = 0) throws {
        self.targetPort = targetPort
        self.shape = shape
        upLink = LinkClock(bitsPerSecond: shape.upBitsPerSecond)
        downLink = LinkClock(bitsPerSecond: shape.downBitsPerSecond)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RelayError("socket: \(String(cString: strerror(errno)))") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = Self.loopback(port: listenPort)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 1024) == 0 else {
            close(fd)
            throw RelayError("cannot listen on 127.0.0.1:\(listenPort): \(String(cString: strerror(errno)))")
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        listener = fd
        port = Int(UInt16(bigEndian: actual.sin_port))
    }

    var totals: Counters { counters.withLock { $0 } }

    /// Accepts connections on a thread of its own until `stop()`.
    func start() {
        Thread { [self] in
            while !stopping.load(ordering: .relaxed) {
                let client = accept(listener, nil, nil)
                guard client >= 0 else {
                    // A connection reset before it was accepted, or no descriptor free for a
                    // moment: keep accepting. Only a closed listener ends the loop.
                    if errno == EBADF || errno == EINVAL { return }
                    if errno != EINTR && errno != ECONNABORTED { Thread.sleep(forTimeInterval: 0.01) }
                    continue
                }
                relay(client)
            }
        }.start()
    }

    /// Stops accepting; connections in progress end on their own.
    func stop() {
        stopping.store(true, ordering: .relaxed)
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func relay(_ client: Int32) {
        let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = Self.loopback(port: targetPort)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard server >= 0, connected == 0 else {
            close(client)
            if server >= 0 { close(server) }
            return
        }
        for fd in [client, server] {
            var yes: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
        }
        counters.withLock { $0.connections += 1 }
        let budget = shape.meanBytesBeforeCut.map { Int64(Double($0) * -log(Double.random(in: Double.ulpOfOne..<1))) }
        let connection = RelayedConnection(client: client, server: server, budget: budget) { [self] in counters.withLock { $0.cuts += 1 } }
        let half = shape.latency / 2
        let up = ShapedPipe(from: client, to: server, link: upLink, delay: half, connection: connection) { [self] n in
            counters.withLock { $0.bytesUp += Int64(n) }
        }
        let down = ShapedPipe(from: server, to: client, link: downLink, delay: half, connection: connection) { [self] n in
            counters.withLock { $0.bytesDown += Int64(n) }
        }
        connection.run([up, down])
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}

/// A relay that could not be set up.
struct RelayError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
