import Foundation
import HTTP
public import SyncEngine
import SyncProtocol

/// `POST /v1/auth/token` (log a device in) and `DELETE /v1/auth/token` (revoke the caller's token).
public struct AuthController: Sendable {
    let login: LoginService
    let accounts: any AccountStore
    let settings: any SettingsStore
    let authenticator: Authenticator

    public init(login: LoginService, accounts: any AccountStore, settings: any SettingsStore, authenticator: Authenticator) {
        self.login = login
        self.accounts = accounts
        self.settings = settings
        self.authenticator = authenticator
    }

    public func register(on routes: APIRoutes) {
        routes.addPublic(.POST, "/v1/auth/token", handler: issue)
        routes.add(.DELETE, "/v1/auth/token", admission: .authenticated, handler: revoke)
    }

    @Sendable func issue(_ request: Request) throws -> Response {
        let body = try request.decode(TokenRequest.self)
        guard DeviceIdentifier.isValid(body.deviceId) else {
            throw APIError.validationFailed(field: "deviceId", "deviceId must be 1-128 characters of A-Z a-z 0-9 . _ : -")
        }
        for (field, text) in [("username", body.username), ("platform", body.platform), ("appVersion", body.appVersion)] {
            try StorableText.require(text, field: field)
        }
        let user = try login.login(username: body.username, password: body.password, address: request.clientAddress)
        let lifetime = TimeInterval(try settings.current().deviceTokenLifetimeDays) * 86_400
        let issued = try accounts.issueToken(
            userId: user.id, deviceId: body.deviceId, platform: body.platform, appVersion: body.appVersion, lifetime: lifetime)
        let info = UserInfo(id: user.id, username: user.username, role: user.role, teamId: user.teamId)
        return try .json(TokenResponse(token: issued.token, expiresAt: RFC3339.string(from: issued.expiresAt), user: info))
    }

    @Sendable func revoke(_ device: DeviceContext) throws -> Response {
        try accounts.revoke(token: device.identity.token)
        authenticator.forgetAll()
        return Response(status: 204)
    }
}
