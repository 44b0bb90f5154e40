import Foundation
import Testing

@testable import Postgres

@Suite("LocalCluster")
struct LocalClusterTests {
    @Test("initialises, starts, is reused by a second instance, stops and restarts")
    func lifecycle() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cluster-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: directory) }
        let owner = LocalCluster(directory: directory, logger: testLogger, durable: false)
        let configuration = try owner.start()
        defer { try? owner.stop() }
        #expect(configuration.database == "fieldsync")
        #expect(configuration.host == "127.0.0.1")
        try PostgresConnection(configuration: configuration, logger: testLogger).close()
        var overTCP = configuration
        overTCP.unixSocketDirectory = nil
        try PostgresConnection(configuration: overTCP, logger: testLogger).close()

        let second = LocalCluster(directory: directory, logger: testLogger)
        let reused = try second.start()
        #expect(reused.port == configuration.port)
        try second.stop()
        try PostgresConnection(configuration: configuration, logger: testLogger).close()

        try owner.stop()
        #expect(throws: PostgresError.self) { try PostgresConnection(configuration: configuration, logger: testLogger) }
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("postgres/postmaster.pid").path))

        let restarted = try owner.start()
        try PostgresConnection(configuration: restarted, logger: testLogger).close()
    }
}

@Suite("PostgresBinaries")
struct PostgresBinariesTests {
    @Test("finds the server programs on this machine")
    func findsInstalledServer() throws {
        let binaries = try PostgresBinaries.locate()
        #expect(FileManager.default.isExecutableFile(atPath: binaries.tool("initdb").path))
    }

    @Test("names the package to install when the programs are missing")
    func namesPackage() {
        let error = #expect(throws: PostgresError.self) { try PostgresBinaries.locate(in: ["/nonexistent/bin"]) }
        #expect(error?.code == .clusterUnavailable)
        #expect(error?.message.contains("\"postgresql\"") == true)
    }
}
