import Foundation
import Synchronization
import Testing

@testable import Postgres

@Suite("ClusterSupervisor")
struct ClusterSupervisorTests {
    @Test("starts a killed postmaster again on the same port, so the same configuration connects")
    func restartsKilledServer() throws {
        let directory = clusterDirectory()
        defer { removeCluster(at: directory) }
        let cluster = LocalCluster(directory: directory, logger: testLogger, durable: false)
        let configuration = try cluster.start()
        let failures = Mutex<[String]>([])
        let supervisor = ClusterSupervisor(cluster: cluster, port: configuration.port, interval: .milliseconds(100), logger: testLogger) {
            reason in failures.withLock { $0.append(reason) }
        }
        supervisor.start()
        defer { supervisor.stop() }

        let killed = try killPostmaster(of: directory)
        let reconnected = eventually(timeout: 60) {
            (try? PostgresConnection(configuration: configuration, logger: testLogger).close()) != nil
        }
        #expect(reconnected)
        #expect(PostmasterFile(dataDirectory: directory.appendingPathComponent("postgres"))?.pid != killed)
        #expect(failures.withLock { $0 }.isEmpty)
    }

    @Test("says why when the killed server cannot be started again")
    func reportsFailedRestart() throws {
        let directory = clusterDirectory()
        defer { removeCluster(at: directory) }
        let cluster = LocalCluster(directory: directory, logger: testLogger, durable: false, launchPatience: .seconds(2))
        let configuration = try cluster.start()
        let failures = Mutex<[String]>([])
        let supervisor = ClusterSupervisor(cluster: cluster, port: configuration.port, interval: .milliseconds(500), logger: testLogger) {
            reason in failures.withLock { $0.append(reason) }
        }
        supervisor.start()
        defer { supervisor.stop() }

        try killPostmaster(of: directory)
        // Another program takes the port before the supervisor gets to it.
        let squatter = try ListeningSocket(port: configuration.port)
        defer { squatter.close() }
        #expect(eventually(timeout: 30) { !failures.withLock { $0 }.isEmpty })
        let reason = failures.withLock { $0.first } ?? ""
        #expect(reason.contains("could not be started again"))
        #expect(reason.contains("Address already in use"))
    }
}

/// A TCP socket listening on 127.0.0.1:`port`, holding the port until closed.
private struct ListeningSocket {
    let descriptor: Int32

    init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var on: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(bound == 0 && listen(descriptor, 1) == 0, "cannot hold port \(port) (errno \(errno))")
    }

    func close() {
        Glibc.close(descriptor)
    }
}
