import CLibPQ
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a program to completion with `posix_spawn` and collects its output.
///
/// Not Foundation's `Process`: it notices a child's exit through a socket the child inherits, and
/// `pg_ctl start` passes every inherited descriptor on to the server it daemonizes, so the exit of
/// `pg_ctl` would go unnoticed for as long as the server runs. Here the child gets only stdin
/// (`/dev/null`) and the output pipe; every other descriptor is closed at spawn.
enum ChildProcess {
    struct Outcome {
        var status: Int32
        var output: String
    }

    /// Spawns `executable` with `arguments`, waits for it, and returns its exit status and combined
    /// stdout and stderr.
    /// - Throws: `PostgresError(.clusterUnavailable)` when it cannot be started.
    static func run(_ executable: String, _ arguments: [String]) throws -> Outcome {
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else { throw failure("cannot create a pipe", executable) }
        let (readEnd, writeEnd) = (pipeEnds[0], pipeEnds[1])
        // Close-on-exec, so programs other code spawns do not hold our pipe open (dup2 in the
        // spawn clears the flag on the child's copies).
        _ = fcntl(readEnd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(writeEnd, F_SETFD, FD_CLOEXEC)
        defer { close(readEnd) }
        let spawned = spawn(executable, arguments, output: writeEnd)
        close(writeEnd)
        guard case .success(let pid) = spawned else { throw failure("cannot start", executable) }
        let output = readAll(readEnd)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return Outcome(status: exitCode(status), output: String(decoding: output, as: UTF8.self))
    }

    private static func spawn(_ executable: String, _ arguments: [String], output: Int32) -> Result<pid_t, Errno> {
        #if canImport(Glibc)
        var actions = posix_spawn_file_actions_t()
        #else
        var actions: posix_spawn_file_actions_t?
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, output, 1)
        posix_spawn_file_actions_adddup2(&actions, output, 2)
        #if os(Linux)
        CLibPQ_spawn_file_actions_addclosefrom(&actions, 3)
        #endif
        var pid: pid_t = 0
        let result = withCStringArray([executable] + arguments + [nil]) { argv in
            // posix_spawn takes `char *const argv[]` but never writes through it.
            let mutableArgv = UnsafeRawPointer(argv!).assumingMemoryBound(to: UnsafeMutablePointer<CChar>?.self)
            return posix_spawn(&pid, executable, &actions, nil, mutableArgv, environ)
        }
        return result == 0 ? .success(pid) : .failure(Errno(result))
    }

    private static func readAll(_ descriptor: Int32) -> [UInt8] {
        var collected: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                collected += chunk[0..<count]
            } else if count == 0 || errno != EINTR {
                return collected
            }
        }
    }

    /// The exit code, or 128 + the signal number for a killed child (the shell's convention).
    private static func exitCode(_ status: Int32) -> Int32 {
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }

    private static func failure(_ what: String, _ executable: String) -> PostgresError {
        PostgresError(code: .clusterUnavailable, message: "\(what) \(executable) (errno \(errno))")
    }

    struct Errno: Error {
        var code: Int32
        init(_ code: Int32) { self.code = code }
    }
}
