import App
import AppTesting
import Foundation
import Postgres
import Storage
import SyncEngine
import SyncProtocol
import Testing

/// `POST /v1/auth/token` over HTTP, as PROTOCOL.md "Accounts" specifies it.
@Suite("Device login")
struct AuthTests {
    private static func tokenRequest(_ username: String, _ password: String, deviceId: String = "dev-8842") -> TokenRequest {
        TokenRequest(username: username, password: password, deviceId: deviceId, platform: "ios", appVersion: "2.3.0")
    }

    @Test("A correct login answers 200 with token, expiresAt and the user")
    func issuesToken() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let (user, password) = try server.makeUser(role: .field, team: "north")

        let response = try await server.client.post("/v1/auth/token", json: Self.tokenRequest(user.username, password))

        #expect(response.status == 200)
        guard case .object(let body) = try response.json(), case .object(let userObject)? = body["user"] else {
            Issue.record("not an object with a user: \(response)")
            return
        }
        #expect(Set(body.keys) == ["token", "expiresAt", "user"])
        #expect(Set(userObject.keys) == ["id", "username", "role", "teamId"])
        let token = try response.decode(TokenResponse.self)
        #expect(token.user == UserInfo(id: user.id, username: user.username, role: .field, teamId: "north"))
        #expect(token.token.count >= 32)
        let expiresAt = try #require(RFC3339.date(from: token.expiresAt))
        #expect(abs(expiresAt.timeIntervalSinceNow - 90 * 86_400) < 300, "the default token lifetime is 90 days")
        #expect(try await server.client.get("/v1/config", token: token.token).status == 200)
        let stored = try server.core.database.withConnection { connection in
            try connection.query("SELECT row_to_json(t)::text AS row FROM device_tokens t").map { try $0.decode("row", as: String.self) }
        }
        #expect(stored.count == 1)
        #expect(!stored.contains { $0.contains(token.token) }, "only a hash of the token is stored")
    }

    @Test("An unknown user and a wrong password get the same 401 INVALID_CREDENTIALS body")
    func sameAnswerForUnknownUserAndWrongPassword() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let (user, _) = try server.makeUser()

        let wrongPassword = try await server.client.post("/v1/auth/token", json: Self.tokenRequest(user.username, "not-the-password"))
        let unknownUser = try await server.client.post("/v1/auth/token", json: Self.tokenRequest("nobody-here", "not-the-password"))

        #expect(wrongPassword.status == 401)
        #expect(wrongPassword.errorCode == "INVALID_CREDENTIALS")
        #expect(unknownUser.status == 401)
        #expect(unknownUser.body == wrongPassword.body)
        #expect(unknownUser.header("content-type") == wrongPassword.header("content-type"))
    }

    @Test(
        "A bad deviceId is 400 VALIDATION_FAILED naming the field",
        arguments: ["", "has space", String(repeating: "d", count: 129), "dév-1", "dev/1"])
    func rejectsBadDeviceId(deviceId: String) async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let (user, password) = try server.makeUser()

        let response = try await server.client.post("/v1/auth/token", json: Self.tokenRequest(user.username, password, deviceId: deviceId))

        #expect(response.status == 400)
        let envelope = try response.errorEnvelope()
        #expect(envelope.error.code == .validationFailed)
        #expect(envelope.error.details?["field"] == "deviceId")
    }

    @Test("U+0000, which the database cannot store, in username, platform or appVersion is 400 VALIDATION_FAILED naming the field")
    func rejectsUnstorableText() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let (user, password) = try server.makeUser()

        for field in ["username", "platform", "appVersion"] {
            var body = ["username": user.username, "password": password, "deviceId": "dev-8842", "platform": "ios", "appVersion": "2.3.0"]
            body[field] = "a\u{0}b"
            let response = try await server.client.post("/v1/auth/token", json: body)

            #expect(response.status == 400, "\(field)")
            let envelope = try response.errorEnvelope()
            #expect(envelope.error.code == .validationFailed, "\(field)")
            #expect(envelope.error.details?["field"] == .string(field))
        }
        #expect(try await server.client.post("/v1/auth/token", json: Self.tokenRequest(user.username, password)).status == 200)
    }

    @Test("A missing deviceId is 400 VALIDATION_FAILED naming the field")
    func rejectsMissingDeviceId() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let (user, password) = try server.makeUser()

        let response = try await server.client.post("/v1/auth/token", json: ["username": user.username, "password": password])

        #expect(response.status == 400)
        #expect(try response.errorEnvelope().error.details?["field"] == "deviceId")
    }

    @Test(
        "A body that is not JSON, or nests deeper than 64 levels, is 400 MALFORMED_JSON",
        arguments: [
            #"{"username": "ana", "password": "#, "username=ana&password=x", String(repeating: "[", count: 65) + String(repeating: "]", count: 65),
        ])
    func rejectsMalformedJSON(body: String) async throws {
        let server = try await TestServer.start()
        defer { server.stop() }

        let response = try await server.client.send(
            "POST", "/v1/auth/token", body: Data(body.utf8), headers: ["Content-Type": "application/json"])

        #expect(response.status == 400)
        #expect(response.errorCode == "MALFORMED_JSON")
    }

    @Test("After five failures a user name gets 429 RATE_LIMITED with Retry-After, even with the right password")
    func throttlesPerUsername() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let (user, password) = try server.makeUser()
        let (other, otherPassword) = try server.makeUser()

        for _ in 0..<5 {
            let response = try await server.client.post("/v1/auth/token", json: Self.tokenRequest(user.username, "wrong-password"))
            #expect(response.status == 401)
        }
        // Throttling is keyed on the lower-cased name, so changing its case does not escape it.
        let throttled = try await server.client.post("/v1/auth/token", json: Self.tokenRequest(user.username.uppercased(), password))

        #expect(throttled.status == 429)
        #expect(throttled.errorCode == "RATE_LIMITED")
        let retryAfter = try #require(throttled.header("Retry-After").flatMap(Int.init))
        #expect((1...900).contains(retryAfter))
        let unaffected = try await server.client.post("/v1/auth/token", json: Self.tokenRequest(other.username, otherPassword))
        #expect(unaffected.status == 200)
    }

    @Test("After thirty failures from one address every login from it gets 429 RATE_LIMITED")
    func throttlesPerAddress() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let (user, password) = try server.makeUser()

        for attempt in 0..<30 {
            let response = try await server.client.post("/v1/auth/token", json: Self.tokenRequest("guess-\(attempt)", "wrong-password"))
            #expect(response.status == 401)
        }
        let throttled = try await server.client.post("/v1/auth/token", json: Self.tokenRequest(user.username, password))

        #expect(throttled.status == 429)
        #expect(throttled.errorCode == "RATE_LIMITED")
        #expect(throttled.header("Retry-After").flatMap(Int.init) != nil)
    }

    @Test("A suspended user with the right password gets 403 ACCOUNT_SUSPENDED and no token")
    func suspendedLogin() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let (user, password) = try server.makeUser()
        try server.core.accounts.setSuspended(username: user.username, true)

        let response = try await server.client.post("/v1/auth/token", json: Self.tokenRequest(user.username, password))

        #expect(response.status == 403)
        #expect(response.errorCode == "ACCOUNT_SUSPENDED")
        #expect(try server.core.accounts.listTokens(userId: user.id).isEmpty)
    }
}
