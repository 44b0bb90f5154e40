import Foundation
import Synchronization
import Testing

@testable import Postgres

@Suite("ClusterSupervisor")
struct ClusterSupervisorTests {
    @Test("starts a killed postmaster again on the same port, so the same configuration connects")
    func restartsKilledServer() async throws {
        let (reconnected, killed, now, failures) = try await withClusterDirectory { directory in
            let (configuration, supervisor, failures) = try Self.supervise(LocalCluster(directory: directory, logger: testLogger, durable: false))
            defer { supervisor.stop() }
            let killed = try killPostmaster(of: directory)
            let reconnected = eventually(timeout: 60) {
                (try? PostgresConnection(configuration: configuration, logger: testLogger).close()) != nil
            }
            return (reconnected, killed, PostmasterFile(dataDirectory: directory.appendingPathComponent("postgres"))?.pid, failures.all)
        }
        #expect(reconnected)
        #expect(now != killed)
        #expect(failures.isEmpty)
    }

    @Test("says why when the killed server cannot be started again")
    func reportsFailedRestart() async throws {
        let failures = try await withClusterDirectory { directory in
            let cluster = LocalCluster(directory: directory, logger: testLogger, durable: false, launchPatience: .seconds(2))
            let (configuration, supervisor, failures) = try Self.supervise(cluster, interval: .seconds(2))
            defer { supervisor.stop() }
            try killPostmaster(of: directory)
            // Another program takes the port before the supervisor's next check, as soon as the
            // dying postmaster has released it.
            let squatter = try ListeningSocket(port: configuration.port, within: 1.5)
            defer { squatter.close() }
            _ = eventually(timeout: 30) { !failures.all.isEmpty }
            return failures.all
        }
        #expect(failures.count == 1)
        let reason = failures.first ?? ""
        #expect(reason.contains("could not be started again"))
        #expect(reason.contains("Address already in use"))
    }
}

extension ClusterSupervisorTests {
    /// Starts the cluster and a supervisor watching it; the failures it reports are collected.
    static func supervise(
        _ cluster: LocalCluster, interval: Duration = .milliseconds(100)
    ) throws
        -> (PostgresConfiguration, ClusterSupervisor, Failures)
    {
        let configuration = try cluster.start()
        let failures = Failures()
        let supervisor = ClusterSupervisor(cluster: cluster, port: configuration.port, interval: interval, logger: testLogger) { reason in
            failures.reasons.withLock { $0.append(reason) }
        }
        supervisor.start()
        return (configuration, supervisor, failures)
    }

    /// The reasons a supervisor gave up with.
    final class Failures: Sendable {
        let reasons = Mutex<[String]>([])
        var all: [String] { reasons.withLock { $0 } }
    }
}

/// A TCP socket listening on 127.0.0.1:`port`, holding the port until closed.
private struct ListeningSocket {
    let descriptor: Int32

    /// Binds as soon as the port is free, trying for up to `seconds`.
    init(port: Int, within seconds: TimeInterval) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var on: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let bound = eventually(timeout: seconds) { [descriptor] in
            withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            } == 0
        }
        guard bound, listen(descriptor, 1) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EADDRINUSE) }
    }

    func close() {
        Glibc.close(descriptor)
    }
}
