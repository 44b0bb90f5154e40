import App
import AppTesting
import Foundation
import Postgres
import Support
import Testing

/// A request stuck behind the database's time limits is told to retry, not answered 500.
@Suite("Database time limits reach devices as SERVER_BUSY")
struct DatabaseBusyTests {
    @Test(
        "A pull waiting on a table another transaction holds gets 503 SERVER_BUSY with Retry-After, then succeeds once it is free",
        arguments: [(statement: 1_000, lock: 10_000), (statement: 10_000, lock: 1_000)])
    func pullBehindHeldLock(limits: (statement: Int, lock: Int)) async throws {
        // The account is made through a server with the default limits: on a loaded machine
        // a setup statement may take longer than the short limit under test.
        let setup = try await TestServer.start()
        defer { setup.stop() }
        let (user, password) = try setup.makeUser()
        let server = try await TestServer.start(database: setup.database) {
            $0.databaseTimeouts.statement = .milliseconds(limits.statement)
            $0.databaseTimeouts.lock = .milliseconds(limits.lock)
        }
        defer { server.stop() }
        let ana = try await SyncDevice(server: server, user: user, password: password, deviceId: "dev-" + SyncDevice.shortId(), appVersion: "2.3.0")
        let holder = try PostgresConnection(configuration: server.database, logger: Logger(label: "test", level: .warning))
        defer { holder.close() }
        try holder.executeScript("BEGIN; LOCK TABLE records IN ACCESS EXCLUSIVE MODE")

        let blocked = try await ana.pullResponse()
        #expect(blocked.status == 503)
        #expect(blocked.errorCode == "SERVER_BUSY")
        #expect(blocked.header("Retry-After") == "2")

        try holder.executeScript("COMMIT")
        #expect(try await ana.pullResponse().status == 200)
    }
}
