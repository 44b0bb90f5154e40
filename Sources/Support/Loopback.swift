public import Foundation

/// Raw TCP connections to this machine, for the benchmarks and tests that speak HTTP to a
/// FieldSync server over a plain socket.
public enum Loopback {
    /// A socket connected to `127.0.0.1:port`; the caller owns (and closes) the descriptor.
    /// - Parameter configure: runs on the socket before it connects, for options that only
    ///   count then (a small `SO_RCVBUF` shrinks the window the server sees).
    /// - Throws: `POSIXError`, e.g. `.ECONNREFUSED` when nothing listens.
    public static func connect(port: Int, configure: (Int32) -> Void = { _ in }) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        configure(descriptor)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Foundation.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let code = errno
            close(descriptor)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
        return descriptor
    }

    /// Writes all of `data` to `descriptor`, looping over partial writes.
    /// - Throws: `POSIXError` when the socket fails (`MSG_NOSIGNAL`: a closed peer is an
    ///   error here, not a `SIGPIPE` that ends the process).
    public static func send(_ data: Data, on descriptor: Int32) throws {
        try data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let sent = Foundation.send(descriptor, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
                guard sent > 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EPIPE) }
                offset += sent
            }
        }
    }
}
