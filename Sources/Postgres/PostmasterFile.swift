import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a running server wrote to `<data>/postmaster.pid`, and whether it is still alive.
///
/// > The file's lines are: PID, data directory, start time, port, first Unix socket directory,
/// > first listen address, shared memory key, status (`starting`, `ready`, `stopping`).
struct PostmasterFile {
    var pid: pid_t
    var port: Int
    var socketDirectory: String?
    var listenAddress: String?

    /// Reads the file of a data directory; nil when there is none or it is unreadable.
    init?(dataDirectory: URL) {
        guard let text = try? String(contentsOf: dataDirectory.appendingPathComponent("postmaster.pid"), encoding: .utf8) else {
            return nil
        }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard lines.count >= 6, let pid = pid_t(lines[0]), let port = Int(lines[3]) else { return nil }
        self.pid = pid
        self.port = port
        socketDirectory = lines[4].isEmpty ? nil : lines[4]
        listenAddress = lines[5].isEmpty || lines[5] == "*" ? nil : lines[5]
    }

    /// Whether the process exists. A root process may signal anything; an unprivileged one gets
    /// EPERM for a server run by another account, which still means it is alive. A zombie (a
    /// crashed server whose parent never reaped it, common under a container's init) is dead.
    var isAlive: Bool {
        guard kill(pid, 0) == 0 || errno == EPERM else { return false }
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let afterName = stat.range(of: ") ", options: .backwards)
        else { return true }
        return !stat[afterName.upperBound...].hasPrefix("Z")
    }
}

/// A TCP port on 127.0.0.1 that was free a moment ago (the kernel picks it; the server may still
/// lose a race for it, which `LocalCluster` retries).
func freeLoopbackPort() throws -> Int {
    #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard descriptor >= 0 else { throw ServerAccount.unavailable("cannot open a socket to find a free port (errno \(errno))") }
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let status = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
            bind(descriptor, socketAddress, length) == 0 ? getsockname(descriptor, socketAddress, &length) : -1
        }
    }
    guard status == 0 else { throw ServerAccount.unavailable("cannot bind a socket to find a free port (errno \(errno))") }
    return Int(UInt16(bigEndian: address.sin_port))
}
