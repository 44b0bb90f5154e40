import Foundation
import Support
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension LocalCluster {
    /// Starts the server with `pg_ctl start` on `port`, or on a free port when nil.
    ///
    /// A server that was killed leaves things that make the next start fail for a while: its
    /// backends finish the query they were running before they notice, holding its shared memory
    /// ("pre-existing shared memory block is still in use"), and its pid may still name a zombie
    /// or, after a reboot, another program ("lock file already exists"). Those failures, and a
    /// port taken by another process, are retried every half second for `launchPatience`; any
    /// other failure is reported at once, with the reason from the server log.
    func launch(binaries: PostgresBinaries, account: ServerAccount, port preferred: Int?) throws -> PostgresConfiguration {
        let deadline = ContinuousClock.now + launchPatience
        var port = try preferred ?? freeLoopbackPort()
        while true {
            removeStalePidFile()
            let logOffset = serverLogSize
            do {
                try account.run(binaries.tool("pg_ctl"), pgCtlStartArguments(port: port))
                startedHere.withLock { $0 = true }
                logger.debug("local postgres started", metadata: ["db.port": "\(port)"])
                return PostgresConfiguration(
                    host: "127.0.0.1", port: port, user: "postgres", database: "postgres", unixSocketDirectory: socketDirectory)
            } catch let error as PostgresError {
                // Another process may have started this same cluster meanwhile: use it.
                if let server = try runningServer() { return server }
                let reason = serverLogFailure(since: logOffset)
                guard let obstacle = LaunchObstacle(reason), ContinuousClock.now < deadline else {
                    throw PostgresError(code: .clusterUnavailable, message: error.message + (reason.isEmpty ? "" : "; server log: \(reason)"))
                }
                if obstacle == .portTaken, preferred == nil { port = try freeLoopbackPort() }
                logger.notice("local postgres cannot start yet, trying again", metadata: ["db.reason": reason])
                Thread.sleep(forTimeInterval: 0.5)
            }
        }
    }

    /// Removes a `postmaster.pid` whose server is gone, which PostgreSQL would otherwise take for a
    /// running server as long as its pid names a live process (a zombie, or another program after
    /// a reboot or a container restart). The file stays while processes of the old server are
    /// attached to its shared memory: PostgreSQL finds them through it, and must wait for them.
    private func removeStalePidFile() {
        guard let file = PostmasterFile(dataDirectory: dataDirectory), !file.isAlive, !file.isSharedMemoryInUse else { return }
        // A concurrent start of this cluster replaces the file with its own only after it has
        // checked the old one itself, so the file removed here is the stale one, bar a window of
        // microseconds between two starts of the same cluster.
        guard unlink(PostmasterFile.url(in: dataDirectory).path) == 0 else { return }
        logger.notice("removed the pid file of a local postgres that is no longer running", metadata: ["db.pid": "\(file.pid)"])
    }

    private func pgCtlStartArguments(port: Int) -> [String] {
        var words = [
            "-p", String(port), "-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=\(socketDirectory ?? "")",
            "-c", "max_connections=\(maxConnections)",
        ]
        words += settings.flatMap { ["-c", $0] }
        if !durable {
            words += ["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"]
        }
        // pg_ctl hands -o to /bin/sh, so every word is single-quoted.
        let options = words.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        return ["start", "-D", dataDirectory.path, "-l", serverLog.path, "-w", "-t", "60", "-s", "-o", options]
    }

    /// The run directory, unless its socket path would exceed the kernel's limit (~107 bytes); then
    /// the server listens on TCP only.
    var socketDirectory: String? {
        let path = runDirectory.path
        return path.utf8.count + "/.s.PGSQL.65535".utf8.count < 104 ? path : nil
    }

    private var serverLog: URL { runDirectory.appendingPathComponent("server.log") }

    private var serverLogSize: UInt64 {
        ((try? FileManager.default.attributesOfItem(atPath: serverLog.path))?[.size] as? NSNumber)?.uint64Value ?? 0
    }

    /// The server's own words for a failed start: its `FATAL`, `HINT` and `could not` lines logged
    /// after `offset`, without their time stamps.
    private func serverLogFailure(since offset: UInt64) -> String {
        guard let handle = try? FileHandle(forReadingFrom: serverLog) else { return "" }
        defer { try? handle.close() }
        try? handle.seek(toOffset: offset)
        let text = String(decoding: (try? handle.readToEnd()) ?? Data(), as: UTF8.self)
        let lines = text.split(separator: "\n").compactMap { line -> Substring? in
            guard let start = ["FATAL:", "HINT:", "LOG:  could not"].lazy.compactMap({ line.range(of: $0)?.lowerBound }).first else {
                return nil
            }
            return line[start...]
        }
        return String(lines.joined(separator: " ").prefix(1500))
    }
}

/// Why a start failed when trying again may succeed.
enum LaunchObstacle {
    /// What a killed server left: backends still attached to its shared memory, or a lock file
    /// naming a process that is not reaped yet.
    case previousServer
    /// Another process listens on the port.
    case portTaken

    init?(_ reason: String) {
        if reason.contains("Address already in use") {
            self = .portTaken
        } else if reason.contains("pre-existing shared memory block") || reason.contains("lock file") {
            self = .previousServer
        } else {
            return nil
        }
    }
}
