import App
import AppTesting
import Foundation
import Support
import SyncEngine
import SyncProtocol
import Testing

/// Login throttling end to end: delays that grow instead of a lock, per guesser, per
/// address and per name; long names; and client addresses only from a trusted proxy.
@Suite("Login throttling")
struct LoginThrottleTests {
    private static func login(
        _ server: TestServer, _ username: String, _ password: String, from address: String? = nil
    ) async throws -> TestResponse {
        let body = TokenRequest(username: username, password: password, deviceId: "dev-throttle", platform: "ios", appVersion: "2.3.0")
        return try await server.client.post("/v1/auth/token", json: body, headers: address.map { ["X-Forwarded-For": $0] } ?? [:])
    }

    @Test("Others' failures on admin's name delay admin briefly but never lock it out; the guesser waits longer")
    func noLockout() async throws {
        let server = try await TestServer.start(configure: {
            $0.connections.trustedProxies = ["127.0.0.1"]
            $0.loginThrottling.perUsername = .init(freeFailures: 6, baseDelay: 1, maxDelay: 1)
        })
        defer { server.stop() }
        // One guesser behind the proxy: five free failures, then a long delay for that guesser only.
        for _ in 0..<5 {
            #expect(try await Self.login(server, "admin", "guess", from: "203.0.113.9").status == 401)
        }
        let guesser = try await Self.login(server, "admin", TestServer.adminPassword, from: "203.0.113.9")
        #expect(guesser.status == 429)
        #expect((2...30).contains(guesser.header("Retry-After").flatMap(Int.init) ?? 0))
        // Two more sources push admin's name past its free failures.
        for source in ["203.0.113.10", "203.0.113.11"] {
            for _ in 0..<3 { _ = try await Self.login(server, "admin", "guess", from: source) }
        }
        let first = try await Self.login(server, "admin", TestServer.adminPassword, from: "198.51.100.7")
        if first.status == 429 {
            #expect(first.errorCode == ErrorCode.rateLimited.rawValue)
            #expect(first.header("Retry-After") == "1", "the name's delay is capped")
        } else {
            #expect(first.status == 200)
        }
        let signedIn = try await eventually { try await Self.login(server, "admin", TestServer.adminPassword, from: "198.51.100.7").status == 200 }
        #expect(signedIn)
    }

    @Test("X-Forwarded-For from a peer that is not a trusted proxy changes nothing")
    func untrustedForwardedFor() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let (user, password) = try server.makeUser()
        for attempt in 0..<30 {
            #expect(try await Self.login(server, "guess-\(attempt)", "wrong", from: "203.0.113.\(attempt)").status == 401)
        }
        let spoofed = try await Self.login(server, user.username, password, from: "198.51.100.99")
        #expect(spoofed.status == 429, "still throttled as 127.0.0.1")
    }

    @Test("A user name longer than any account's fails at once as 401, without a hash or a throttle entry")
    func longUsername() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let huge = String(repeating: "a", count: 500_000)
        for _ in 0..<40 {
            let response = try await Self.login(server, huge, "wrong")
            #expect(response.status == 401)
            #expect(response.errorCode == ErrorCode.invalidCredentials.rawValue)
        }
        let (user, password) = try server.makeUser()
        #expect(try await Self.login(server, user.username, password).status == 200, "the address was never throttled")
    }
}
