internal import Foundation

/// Opens the listening socket the daemon serves, so a taken port is reported as exactly
/// that (`MHD_start_daemon` only answers NULL).
enum ListenSocket {
    /// A bound, listening, non-blocking socket for `host:port`.
    /// - Throws: `HTTPServerError` `.addressInUse` or `.bindFailed`.
    static func open(host: String, port: Int, backlog: Int32 = 1024) throws -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(host, String(port), &hints, &list)
        guard resolved == 0, let address = list else {
            throw HTTPServerError(code: .bindFailed, message: "Cannot resolve \(host): \(String(cString: gai_strerror(resolved))).")
        }
        defer { freeaddrinfo(list) }
        let descriptor = socket(address.pointee.ai_family, address.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw failure(.bindFailed, "Cannot create a socket", host, port) }
        do {
            // SO_REUSEADDR lets a restarted server bind while old connections sit in
            // TIME_WAIT; a port another process listens on still fails with EADDRINUSE.
            var on: Int32 = 1
            setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
            guard bind(descriptor, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 else {
                throw failure(errno == EADDRINUSE ? .addressInUse : .bindFailed, "Cannot bind", host, port)
            }
            guard listen(descriptor, backlog) == 0 else { throw failure(.bindFailed, "Cannot listen", host, port) }
            // libmicrohttpd's epoll loop accepts until EAGAIN, so the socket must not block.
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
            return descriptor
        } catch {
            close(descriptor)
            throw error
        }
    }

    private static func failure(_ code: HTTPServerError.Code, _ what: String, _ host: String, _ port: Int) -> HTTPServerError {
        HTTPServerError(code: code, message: "\(what) on \(host):\(port): \(String(cString: strerror(errno))).")
    }
}
