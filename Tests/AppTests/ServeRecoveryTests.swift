import AppTesting
import Foundation
import SyncProtocol
import Testing

/// `fieldsync serve` on its embedded PostgreSQL when one of them is killed with SIGKILL (the
/// fault run in Tests/Faults does the same under load, many times).
@Suite("serve after a kill")
struct ServeRecoveryTests {
    @Test("serve starts its embedded PostgreSQL again when it is killed, and keeps serving")
    func restartsKilledPostgres() async throws {
        let dataDirectory = Self.dataDirectory()
        defer { Self.remove(dataDirectory) }
        let serve = try FieldSyncCLI.launch(["serve", "--port", "0", "--data-dir", dataDirectory.path], environment: Self.admin)
        let client = TestClient(baseURL: URL(string: "http://127.0.0.1:\(try await serve.listeningPort())/")!)

        let killed = try #require(Self.postmaster(in: dataDirectory))
        kill(killed, SIGKILL)
        var answered = false
        for _ in 0..<600 where !answered {
            try await Task.sleep(for: .milliseconds(100))
            if let pid = Self.postmaster(in: dataDirectory), pid != killed {
                answered = (try? await Self.signIn(client)) == 200
            }
        }
        #expect(answered, "\(serve.standardError)")
        #expect(serve.standardError.contains("the embedded PostgreSQL stopped unexpectedly; starting it again"))

        serve.signal(SIGTERM)
        #expect(try await serve.wait(timeout: .seconds(60)).status == 0)
        #expect(Self.postmaster(in: dataDirectory) == nil, "serve stops the cluster it started again")
    }

    @Test("serve started after a killed one adopts the PostgreSQL it left running, and stops it on exit")
    func adoptsOrphanedPostgres() async throws {
        let dataDirectory = Self.dataDirectory()
        defer { Self.remove(dataDirectory) }
        let arguments = ["serve", "--port", "0", "--data-dir", dataDirectory.path]
        let killed = try FieldSyncCLI.launch(arguments, environment: Self.admin)
        _ = try await killed.listeningPort()
        killed.signal(SIGKILL)
        _ = try await killed.wait(timeout: .seconds(30))
        let orphan = try #require(Self.postmaster(in: dataDirectory), "the killed server's PostgreSQL keeps running")

        let serve = try FieldSyncCLI.launch(arguments)
        let client = TestClient(baseURL: URL(string: "http://127.0.0.1:\(try await serve.listeningPort())/")!)
        #expect(try await Self.signIn(client) == 200)
        #expect(Self.postmaster(in: dataDirectory) == orphan)
        serve.signal(SIGTERM)
        #expect(try await serve.wait(timeout: .seconds(60)).status == 0)
        #expect(Self.postmaster(in: dataDirectory) == nil, "serve stops the cluster it adopted")
    }

    // MARK: - Support

    static let admin = ["FIELDSYNC_ADMIN_PASSWORD": "first-admin-pass"]

    static func signIn(_ client: TestClient) async throws -> Int {
        try await client.post("/v1/auth/token", json: TokenRequest(username: "admin", password: "first-admin-pass", deviceId: "d1")).status
    }

    /// A data folder short enough for the cluster's Unix socket path.
    static func dataDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("fsync-\(UUID().uuidString.prefix(6))")
    }

    /// The pid of the postmaster running on the folder's cluster, if one runs (a dead server's pid
    /// may already belong to another process, which must never be signalled).
    static func postmaster(in dataDirectory: URL) -> pid_t? {
        let file = dataDirectory.appendingPathComponent("postgres/postmaster.pid")
        guard let text = try? String(contentsOf: file, encoding: .utf8), let pid = text.split(separator: "\n").first.flatMap({ pid_t($0) }),
            let name = try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8), name.hasPrefix("postgres")
        else { return nil }
        return pid
    }

    /// Kills whatever PostgreSQL a failed test left running, then deletes the folder.
    static func remove(_ dataDirectory: URL) {
        if let pid = postmaster(in: dataDirectory) { kill(pid, SIGKILL) }
        try? FileManager.default.removeItem(at: dataDirectory)
    }
}
