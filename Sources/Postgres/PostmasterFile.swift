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
    /// The id of the System V segment the server's processes stay attached to while any of them runs.
    var sharedMemoryID: Int32?

    /// Reads the file of a data directory; nil when there is none or it is unreadable.
    init?(dataDirectory: URL) {
        guard let text = try? String(contentsOf: Self.url(in: dataDirectory), encoding: .utf8) else {
            return nil
        }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard lines.count >= 6, let pid = pid_t(lines[0]), let port = Int(lines[3]) else { return nil }
        self.pid = pid
        self.port = port
        socketDirectory = lines[4].isEmpty ? nil : lines[4]
        listenAddress = lines[5].isEmpty || lines[5] == "*" ? nil : lines[5]
        sharedMemoryID = lines.count > 6 ? lines[6].split(separator: " ").last.flatMap { Int32($0) } : nil
    }

    static func url(in dataDirectory: URL) -> URL {
        dataDirectory.appendingPathComponent("postmaster.pid")
    }

    /// Whether the process is a running PostgreSQL server. A root process may signal anything; an
    /// unprivileged one gets EPERM for a server run by another account, which still means it is
    /// alive. A zombie (a killed server whose parent has not reaped it yet, or never will under a
    /// container's init) is dead, and so is another program that was given the same pid after a
    /// reboot or a container restart.
    var isAlive: Bool {
        guard kill(pid, 0) == 0 || errno == EPERM else { return false }
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let afterName = stat.range(of: ") ", options: .backwards)
        else { return true }
        let name = stat[stat.index(after: stat.firstIndex(of: "(") ?? stat.startIndex)..<afterName.lowerBound]
        return !stat[afterName.upperBound...].hasPrefix("Z") && ["postgres", "postmaster"].contains(name)
    }

    /// Whether any process is still attached to the server's shared memory: backends of a killed
    /// postmaster finish what they were doing before they notice it is gone, and until then no
    /// new server may use the data directory. PostgreSQL checks this through the segment named
    /// in this file, so the file may only be removed once it is false.
    var isSharedMemoryInUse: Bool {
        guard let sharedMemoryID else { return false }
        var status = shmid_ds()
        // EINVAL or EIDRM: the segment is gone (removed by the last process, or by a reboot).
        guard shmctl(sharedMemoryID, IPC_STAT, &status) == 0 else { return errno != EINVAL && errno != EIDRM }
        return status.shm_nattch > 0
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
