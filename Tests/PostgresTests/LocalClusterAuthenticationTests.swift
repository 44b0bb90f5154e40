import Foundation
import PostgresTesting
import Testing

@testable import Postgres

/// The embedded cluster's sign-in: SCRAM with a generated password kept private in the data
/// directory, and the conversion of clusters made when it trusted every local process.
@Suite("LocalCluster authentication")
struct LocalClusterAuthenticationTests {
    @Test("A new cluster lets in only its superuser's password, kept in a 0600 file")
    func passwordOnly() async throws {
        try await withClusterDirectory { directory in
            let cluster = LocalCluster(directory: directory, logger: testLogger, durable: false)
            let configuration = try cluster.start()
            defer { try? cluster.stop() }
            try Self.expectPasswordOnly(cluster, configuration)
        }
    }

    @Test("A cluster made with trust authentication is converted at its next start and keeps its data")
    func convertsTrustingCluster() async throws {
        try await withClusterDirectory { directory in
            let cluster = LocalCluster(directory: directory, logger: testLogger, durable: false)
            let first = try cluster.start()
            try PostgresConnection(configuration: first, logger: testLogger).executeScript("CREATE TABLE kept (x int); INSERT INTO kept VALUES (7)")
            try cluster.stop()
            // What an earlier FieldSync left: every local connection trusted, and no password file.
            try Self.trustEveryone(cluster)
            try FileManager.default.removeItem(at: cluster.passwordFile)

            let restarted = try cluster.start()
            defer { try? cluster.stop() }
            try Self.expectPasswordOnly(cluster, restarted)
            let kept = try PostgresConnection(configuration: restarted, logger: testLogger).query("SELECT x FROM kept")
            #expect(try kept.map { try $0.decode(0, as: Int.self) } == [7])
        }
    }

    private static func expectPasswordOnly(_ cluster: LocalCluster, _ configuration: PostgresConfiguration) throws {
        let attributes = try FileManager.default.attributesOfItem(atPath: cluster.passwordFile.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(configuration.password?.isEmpty == false)
        #expect(!cluster.trustsLocalProcesses)
        try PostgresConnection(configuration: configuration, logger: testLogger).close()
        var overTCP = configuration
        overTCP.unixSocketDirectory = nil
        for var intruder in [configuration, overTCP] {
            intruder.password = nil
            #expect(throws: PostgresError.self) { try PostgresConnection(configuration: intruder, logger: testLogger) }
            intruder.password = "guess"
            #expect(throws: PostgresError.self) { try PostgresConnection(configuration: intruder, logger: testLogger) }
        }
    }

    /// Rewrites `pg_hba.conf` as `initdb --auth=trust` wrote it, keeping the file's owner.
    private static func trustEveryone(_ cluster: LocalCluster) throws {
        let handle = try FileHandle(forWritingTo: cluster.hbaFile)
        defer { try? handle.close() }
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: Data("local all all trust\nhost all all 127.0.0.1/32 trust\nhost all all ::1/128 trust\n".utf8))
    }
}
