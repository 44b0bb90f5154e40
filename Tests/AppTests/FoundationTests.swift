import AppTesting
import Foundation
import Postgres
import PostgresTesting
import Support
import SyncProtocol
import Testing

/// Health, configuration, error envelopes and limits of the real application over HTTP.
@Suite("Server foundation over HTTP")
struct FoundationTests {
    @Test("GET /v1/health answers 200 with status, database and version, without a token")
    func health() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }

        let response = try await server.client.get("/v1/health")

        #expect(response.status == 200)
        #expect(response.header("content-type")?.hasPrefix("application/json") == true)
        guard case .object(let body) = try response.json() else { throw TestServerError("not an object: \(response)") }
        #expect(Set(body.keys) == ["status", "database", "version"])
        let health = try response.decode(HealthResponse.self)
        #expect(health.status == "ok")
        #expect(health.database == "ok")
        #expect(!health.version.isEmpty)
    }

    @Test("GET /v1/health turns 503 soon after the database refuses connections, and 200 once it is back")
    func healthFollowsDatabase() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let admin = try PostgresConnection(configuration: server.database.with(database: "postgres"), logger: Logger(label: "test"))
        defer { admin.close() }
        let name = server.database.database
        #expect(try await server.client.get("/v1/health").status == 200)

        try admin.executeScript(
            """
            ALTER DATABASE \(name) WITH ALLOW_CONNECTIONS false;
            SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(name)' AND pid <> pg_backend_pid();
            """)
        let down = try await Self.poll(server.client, "/v1/health", until: 503, within: .seconds(5))
        #expect(down?.status == 503)
        #expect(try down?.decode(HealthResponse.self) == HealthResponse(status: "unavailable", database: "unreachable", version: "0.1.0"))

        try admin.executeScript("ALTER DATABASE \(name) WITH ALLOW_CONNECTIONS true")
        #expect(try await Self.poll(server.client, "/v1/health", until: 200, within: .seconds(5)) != nil)
    }

    @Test("GET /v1/config needs a token")
    func configNeedsToken() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }

        let response = try await server.client.get("/v1/config")

        #expect(response.status == 401)
        #expect(response.errorCode == "UNAUTHENTICATED")
    }

    @Test("GET /v1/config answers the limits of PROTOCOL.md and the built-in collections")
    func config() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let (_, token) = try await server.makeDevice()

        let response = try await server.client.get("/v1/config", token: token)

        #expect(response.status == 200)
        let config = try response.decode(ConfigResponse.self)
        #expect(config.minSupportedAppVersion == "2.0.0")
        #expect(config.serverSchemaVersion >= 1)
        #expect(config.maxOpsPerPush == 50)
        #expect(config.maxPullLimit == 500)
        #expect(config.chunkBytes == 262_144)
        #expect(config.maxAttachmentBytes == 52_428_800)
        #expect(config.maxAttachmentBytesPerRecord == 157_286_400)
        #expect(config.localRetentionDays == 14)
        guard case .object(let collections) = config.collections else { throw TestServerError("collections is not an object") }
        #expect(Set(collections.keys) == ["assignments", "reports", "jobs", "part_usage", "visits", "orders"])
    }

    @Test("An unknown path is 404 NOT_FOUND in the error envelope")
    func notFound() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }

        let response = try await server.client.get("/v1/no-such-thing")

        #expect(response.status == 404)
        let envelope = try response.errorEnvelope()
        #expect(envelope.error.code.rawValue == "NOT_FOUND")
        #expect(!envelope.error.message.isEmpty)
    }

    @Test("A known path with the wrong method is 405 METHOD_NOT_ALLOWED with Allow")
    func methodNotAllowed() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }

        let response = try await server.client.put("/v1/config", json: ["a": 1])

        #expect(response.status == 405)
        #expect(response.errorCode == "METHOD_NOT_ALLOWED")
        let allowed = Set(try #require(response.header("Allow")).split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        #expect(allowed == ["GET", "HEAD"])
    }

    @Test("A JSON body over 1 MiB is 413 PAYLOAD_TOO_LARGE; exactly 1 MiB is read")
    func payloadTooLarge() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let limit = 1 << 20
        let padded = { (size: Int) in Data("{}".utf8 + Array(repeating: UInt8(ascii: " "), count: size - 2)) }

        // `Expect: 100-continue`, as a client sending a large body should: the early 413 is then read
        // instead of the send failing on the connection the server closes.
        let over = try await server.client.send(
            "POST", "/v1/auth/token", body: padded(limit + 1), headers: ["Content-Type": "application/json", "Expect": "100-continue"])
        let atLimit = try await server.client.send(
            "POST", "/v1/auth/token", body: padded(limit), headers: ["Content-Type": "application/json"])

        #expect(over.status == 413)
        #expect(over.errorCode == "PAYLOAD_TOO_LARGE")
        #expect(atLimit.status == 400)
        #expect(atLimit.errorCode == "VALIDATION_FAILED")
    }

    @Test("Request headers over 16 KiB are refused with 431")
    func headersTooLarge() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }

        let response = try await server.client.get("/v1/health", headers: ["X-Padding": String(repeating: "p", count: 17 << 10)])

        #expect(response.status == 431)
        #expect(response.errorCode == "HEADERS_TOO_LARGE")
    }

    @Test("Every request writes one info access-log line")
    func accessLog() async throws {
        let sink = LogSink.capturing()
        let server = try await TestServer.start(logger: Logger(label: "fieldsync", level: .info, sink: sink))
        defer { server.stop() }

        _ = try await server.client.get("/v1/health?probe=1")
        _ = try await server.client.get("/v1/config")

        let lines = sink.captured.filter { $0.contains(" info fieldsync: request ") }
        #expect(lines.count == 2)
        // The query string stays out of the log (it may carry secrets).
        #expect(lines.first?.hasSuffix("http.method=GET http.path=/v1/health http.status=200") == true)
        #expect(lines.last?.contains("http.path=/v1/config http.status=401") == true)
    }

    /// Requests `path` until it answers `status`; nil when it did not within `bound`.
    static func poll(_ client: TestClient, _ path: String, until status: Int, within bound: Duration) async throws -> TestResponse? {
        try await eventually(within: bound, every: .milliseconds(50)) {
            let response = try await client.get(path)
            return response.status == status ? response : nil
        }
    }
}
