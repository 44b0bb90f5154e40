import App
import AppTesting
import Foundation
import HTTP
import Postgres
import PostgresTesting
import Storage
import Support
import SyncEngine
import SyncProtocol
import Synchronization
import Testing

/// Start-up (first admin) and graceful shutdown of the whole application.
@Suite("Application lifecycle")
struct LifecycleTests {
    @Test("The first start creates admin once; a restart on the same database creates no other")
    func firstAdminOnce() async throws {
        let first = try await TestServer.start()
        let users = try first.core.accounts.listUsers()
        #expect(users.map(\.username) == ["admin"])
        #expect(users.first?.role == .admin)
        #expect(try await first.login(username: "admin", password: TestServer.adminPassword).isEmpty == false)
        first.stop()

        let second = try await TestServer.start(database: first.database) { $0.adminPassword = "another-admin-password" }
        defer { second.stop() }

        #expect(try second.core.accounts.listUsers().map(\.username) == ["admin"])
        #expect(try await second.login(username: "admin", password: TestServer.adminPassword).isEmpty == false)
        let refused = try await second.client.post(
            "/v1/auth/token", json: TokenRequest(username: "admin", password: "another-admin-password", deviceId: "d1"))
        #expect(refused.status == 401)
    }

    @Test("Start creates the spool folder, by default in the system temp directory, also on an external database; shutdown removes it empty")
    func spoolFolder() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        var isDirectory: ObjCBool = false

        let exists = FileManager.default.fileExists(atPath: server.spoolDirectory.path, isDirectory: &isDirectory)

        #expect(exists && isDirectory.boolValue)
        #expect(!server.spoolDirectory.path.hasPrefix(server.dataDirectory.path), "off the data folder's volume by default")
        #expect(server.spoolDirectory.deletingLastPathComponent().standardizedFileURL == FileManager.default.temporaryDirectory.standardizedFileURL)
        server.stop()
        #expect(!FileManager.default.fileExists(atPath: server.spoolDirectory.path), "an empty default spool folder is removed at shutdown")
    }

    @Test("A start that fails to bind closes its database connections and listener")
    func failedStartCleansUp() async throws {
        let running = try await TestServer.start()
        defer { running.stop() }
        let database = try TestDatabase.configuration()

        await #expect(throws: HTTPServerError.self) {
            try await TestServer.start(database: database) { $0.port = running.application.port }
        }

        let observer = try PostgresConnection(configuration: database, logger: Logger(label: "test"))
        defer { observer.close() }
        let closed = try await eventually(within: .seconds(3), every: .milliseconds(50)) { () -> Bool? in
            let others = try observer.query(
                "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )[0].decode("n", as: Int.self)
            return others == 0 ? true : nil
        }
        #expect(closed == true, "connections of the failed start are still open")
    }

    @Test("Shutdown lets an in-flight request finish, then refuses connections")
    func gracefulShutdown() async throws {
        // Limits well above the test's own waits: on a loaded machine the parked login must not
        // give up (503) before the lock is let go.
        let server = try await TestServer.start {
            $0.databaseTimeouts.lock = .seconds(120)
            $0.databaseTimeouts.statement = .seconds(120)
        }
        let (user, password) = try server.makeUser()
        // Holding this lock parks the login's account query inside the server.
        let blocker = try PostgresConnection(configuration: server.database, logger: Logger(label: "test"))
        defer { blocker.close() }
        try blocker.executeScript("BEGIN; LOCK TABLE users IN ACCESS EXCLUSIVE MODE")
        let login = Task {
            try await server.client.post("/v1/auth/token", json: TokenRequest(username: user.username, password: password, deviceId: "d1"))
        }
        try await Self.waitForLockWaiter(blocker)

        let stopped = Stopper(server)
        try await Task.sleep(for: .milliseconds(300))
        #expect(!stopped.isDone, "shutdown must wait for the in-flight request")
        await #expect(throws: (any Error).self, "new connections are refused while stopping") {
            try await TestClient(baseURL: server.baseURL, timeout: 5).get("/v1/health")
        }
        try blocker.executeScript("ROLLBACK")

        let answer = try await login.value
        #expect(answer.status == 200)
        #expect(try answer.decode(TokenResponse.self).user.username == user.username)
        try await stopped.wait(atMost: .seconds(10))
        await #expect(throws: (any Error).self) { try await TestClient(baseURL: server.baseURL, timeout: 5).get("/v1/health") }
    }

    /// Waits until some backend of the blocker's database waits for a lock.
    private static func waitForLockWaiter(_ connection: PostgresConnection) async throws {
        let waiting = try await eventually(within: .seconds(60)) { () -> Bool? in
            let rows = try connection.query(
                "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")
            return try rows[0].decode("n", as: Int.self) > 0 ? true : nil
        }
        guard waiting != nil else { throw TestServerError("the login never waited for the users lock") }
    }
}

/// Runs the blocking `TestServer.stop()` on its own thread, off the cooperative pool.
private final class Stopper: Sendable {
    private let done = Atomic<Bool>(false)

    init(_ server: TestServer) {
        Thread.detachNewThread { [self] in
            server.stop()
            done.store(true, ordering: .sequentiallyConsistent)
        }
    }

    var isDone: Bool { done.load(ordering: .sequentiallyConsistent) }

    func wait(atMost bound: Duration) async throws {
        let deadline = ContinuousClock.now + bound
        while !isDone {
            guard ContinuousClock.now < deadline else { throw TestServerError("shutdown did not finish within \(bound)") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
