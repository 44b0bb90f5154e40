import App
import AppTesting
import Foundation
import PostgresTesting
import Storage
import Support
import SyncEngine
import Testing

/// Bearer authentication of device calls, revocation and suspension, over HTTP.
@Suite("Device tokens")
struct DeviceTokenTests {
    /// The authenticator's grant cache lifetime. A 403 seen sooner than this after a call
    /// that cached the grant proves the accounts notification dropped the cache entry.

    @Test("A valid bearer token is accepted")
    func acceptsToken() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let (_, token) = try await server.makeDevice()

        #expect(try await server.client.get("/v1/config", token: token).status == 200)
        let lowerCaseScheme = try await server.client.get("/v1/config", headers: ["Authorization": "bearer \(token)"])
        #expect(lowerCaseScheme.status == 200, "the auth scheme is case-insensitive (RFC 9110)")
    }

    @Test(
        "Missing or malformed Authorization headers get 401 UNAUTHENTICATED",
        arguments: [
            nil, "", "Bearer", "Bearer ", "Basic YWRtaW46c2VjcmV0", "Token abc", "Bearer not-a-token",
            "Bearer " + String(repeating: "a", count: 300),
        ] as [String?])
    func rejectsBadHeaders(authorization: String?) async throws {
        let server = try await TestServer.start()
        defer { server.stop() }

        let response = try await server.client.get("/v1/config", headers: authorization.map { ["Authorization": $0] } ?? [:])

        #expect(response.status == 401)
        #expect(response.errorCode == "UNAUTHENTICATED")
    }

    @Test("An expired token gets 401 UNAUTHENTICATED")
    func rejectsExpiredToken() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let (user, _) = try server.makeUser()
        let expired = try server.core.accounts.issueToken(
            userId: user.id, deviceId: "dev-old", platform: "ios", appVersion: "2.3.0", lifetime: -60)

        let response = try await server.client.get("/v1/config", token: expired.token)

        #expect(response.status == 401)
        #expect(response.errorCode == "UNAUTHENTICATED")
    }

    @Test("DELETE /v1/auth/token revokes only the caller's token, effective on the very next call")
    func revokesOwnToken() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let (user, password) = try server.makeUser()
        let phone = try await server.login(username: user.username, password: password, deviceId: "phone")
        let tablet = try await server.login(username: user.username, password: password, deviceId: "tablet")
        #expect(try await server.client.get("/v1/config", token: phone).status == 200)

        let revoked = try await server.client.delete("/v1/auth/token", token: phone)

        #expect(revoked.status == 204)
        let after = try await server.client.get("/v1/config", token: phone)
        #expect(after.status == 401)
        #expect(after.errorCode == "UNAUTHENTICATED")
        #expect(try await server.client.delete("/v1/auth/token", token: phone).status == 401)
        #expect(try await server.client.get("/v1/config", token: tablet).status == 200)
    }

    @Test("DELETE /v1/auth/token without a token is 401")
    func revokeNeedsToken() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }

        let response = try await server.client.delete("/v1/auth/token")

        #expect(response.status == 401)
        #expect(response.errorCode == "UNAUTHENTICATED")
    }

    @Test("A token in the query string is not accepted", arguments: ["access_token", "token", "bearer", "Authorization"])
    func rejectsQueryToken(name: String) async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let (_, token) = try await server.makeDevice()

        let response = try await server.client.get("/v1/config?\(name)=\(token)")

        #expect(response.status == 401)
        #expect(response.errorCode == "UNAUTHENTICATED")
    }

    @Test("Suspending through AccountStore gets a cached device 403 ACCOUNT_SUSPENDED on its next call, and revokes its token")
    func suspensionThroughStore() async throws {
        // Grants live 30 s here: only the NOTIFY invalidation, not expiry, explains a 403 within 15 s.
        let server = try await TestServer.start { $0.tokenCacheSeconds = 30 }
        defer { server.stop() }
        let (user, token) = try await server.makeDevice()
        let cachedAt = ContinuousClock.now
        #expect(try await server.client.get("/v1/config", token: token).status == 200)

        try server.core.accounts.setSuspended(username: user.username, true)

        let answer = try await Self.status(403, of: server.client, token: token, before: cachedAt + .seconds(15))
        #expect(answer?.errorCode == "ACCOUNT_SUSPENDED", "no 403 before the cached grant expired")
        try server.core.accounts.setSuspended(username: user.username, false)
        #expect(try await Self.status(401, of: server.client, token: token, before: .now + .seconds(5)) != nil, "the device signs in again")
    }

    @Test("Suspending through the user suspend command object (its own pool on the same database) reaches a cached device")
    func suspensionThroughCommand() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let (user, token) = try await server.makeDevice()
        let environment = Support.Environment([
            "DATABASE_URL": server.databaseURL, "FIELDSYNC_RESOURCES": server.application.configuration.resourcesDirectory.path,
        ])
        #expect(try await server.client.get("/v1/config", token: token).status == 200)

        let suspend = try await onDedicatedThread { CommandLineTool().run(["user", "suspend", user.username], environment: environment) }

        #expect(suspend == 0)
        // The command opens and closes a whole service set, which may take longer than the
        // grant cache lives on a loaded machine; the store test above proves the notification.
        let answer = try await Self.status(403, of: server.client, token: token, before: .now + .seconds(5))
        #expect(answer?.errorCode == "ACCOUNT_SUSPENDED")
        let reactivate = try await onDedicatedThread { CommandLineTool().run(["user", "reactivate", user.username], environment: environment) }
        #expect(reactivate == 0)
        #expect(try await Self.status(401, of: server.client, token: token, before: .now + .seconds(5)) != nil, "the device signs in again")
    }

    /// Calls `GET /v1/config` until it answers `status`; nil when no such answer arrived before `deadline`.
    static func status(
        _ status: Int, of client: TestClient, token: String, before deadline: ContinuousClock.Instant
    ) async throws -> TestResponse? {
        while ContinuousClock.now < deadline {
            let response = try await client.get("/v1/config", token: token)
            if response.status == status { return ContinuousClock.now < deadline ? response : nil }
            try await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }
}
