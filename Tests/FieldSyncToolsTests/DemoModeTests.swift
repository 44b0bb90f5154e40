import AppTesting
import Foundation
import PostgresTesting
import SyncProtocol
import Testing

/// `fieldsync serve --demo`, run as an operator runs it.
@Suite("serve --demo")
struct DemoModeTests {
    @Test("serve --demo says so, creates demo accounts, and its fleet's visits, reports, orders and conflicts show through the API")
    func demoFleetIsVisible() async throws {
        let database = try TestDatabase.configuration()
        let dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("fieldsync-demo-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let serve = try FieldSyncCLI.launch(
            ["serve", "--demo", "--port", "0", "--data-dir", dataDirectory.path],
            environment: ["DATABASE_URL": DatabaseURL.string(for: database), "FIELDSYNC_ADMIN_PASSWORD": "demo-admin-pass"])
        defer { serve.signal(SIGTERM) }
        let port = try await serve.listeningPort()
        let client = TestClient(baseURL: URL(string: "http://127.0.0.1:\(port)/")!)
        let login = try await client.post(
            "/v1/auth/token", json: TokenRequest(username: "admin", password: "demo-admin-pass", deviceId: "demo-check"))
        let token = try login.decode(TokenResponse.self).token

        // The fleet's first round: polled with a deadline, and looked at once more after it.
        var seen = Set<String>()
        var openConflicts = 0
        let deadline = ContinuousClock.now + .seconds(120)
        repeat {
            seen = try await Self.collections(client, token: token)
            openConflicts = try await client.get("/v1/conflicts?state=open", token: token).json()["conflicts"]?.arrayValue?.count ?? 0
            if seen.isSuperset(of: ["jobs", "visits", "reports", "orders"]) && openConflicts > 0 { break }
            try await Task.sleep(for: .milliseconds(500))
        } while ContinuousClock.now < deadline

        #expect(serve.standardError.contains("Demo mode (--demo)"), "\(serve.standardError)")
        #expect(seen.isSuperset(of: ["jobs", "visits", "reports", "orders"]), "\(seen)")
        #expect(openConflicts > 0)
        serve.signal(SIGTERM)
        let output = try await serve.wait(timeout: .seconds(60))
        #expect(output.status == 0, "\(output)")
    }

    /// The collections of every record the admin can pull.
    private static func collections(_ client: TestClient, token: String) async throws -> Set<String> {
        var names = Set<String>()
        var cursor: String?
        repeat {
            let page = try await client.get("/v1/sync/pull?limit=500" + (cursor.map { "&cursor=\($0)" } ?? ""), token: token).decode(
                PullResponse.self)
            names.formUnion(page.changes.map(\.collection))
            cursor = page.hasMore ? page.nextCursor : nil
        } while cursor != nil
        return names
    }
}
