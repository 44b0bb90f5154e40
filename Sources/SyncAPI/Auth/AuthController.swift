import Foundation
import HTTP
import Storage
import SyncProtocol

/// `POST /v1/auth/token` (log a device in) and `DELETE /v1/auth/token` (revoke the caller's token).
public struct AuthController: Sendable {
    let login: LoginService
    let accounts: AccountStore
    let settings: SettingsStore
    let authenticator: Authenticator

    public init(login: LoginService, accounts: AccountStore, settings: SettingsStore, authenticator: Authenticator) {
        self.login = login
        self.accounts = accounts
        self.settings = settings
        self.authenticator = authenticator
    }

    public func register(on router: Router) {
        router.add(.POST, "/v1/auth/token", handler: issue)
        router.add(.DELETE, "/v1/auth/token", handler: revoke)
    }

    @Sendable func issue(_ request: Request) throws -> Response {
        let body = try request.decode(TokenRequest.self)
        guard DeviceIdentifier.isValid(body.deviceId) else {
            throw HTTPError.validationFailed(field: "deviceId", message: "deviceId must be 1-128 characters of A-Z a-z 0-9 . _ : -")
        }
        for (field, text) in [("username", body.username), ("platform", body.platform), ("appVersion", body.appVersion)] {
            try StorableText.require(text, field: field)
        }
        let user: UserAccount
        do {
            user = try login.login(username: body.username, password: body.password, address: request.remoteAddress)
        } catch let failure as LoginService.Failure {
            throw Self.error(for: failure)
        }
        let lifetime = TimeInterval(try settings.current().deviceTokenLifetimeDays) * 86_400
        let issued = try accounts.issueToken(
            userId: user.id, deviceId: body.deviceId, platform: body.platform, appVersion: body.appVersion, lifetime: lifetime)
        let info = UserInfo(id: user.id, username: user.username, role: user.role, teamId: user.teamId)
        return .json(TokenResponse(token: issued.token, expiresAt: RFC3339.string(from: issued.expiresAt), user: info))
    }

    @Sendable func revoke(_ request: Request) throws -> Response {
        let identity = try authenticator.authenticate(request)
        try accounts.revoke(token: identity.token)
        authenticator.forgetAll()
        return Response(status: 204)
    }

    static func error(for failure: LoginService.Failure) -> HTTPError {
        switch failure {
        case .invalidCredentials:
            HTTPError(status: 401, code: "INVALID_CREDENTIALS", message: "The user name or password is incorrect.")
        case .suspended:
            HTTPError(status: 403, code: "ACCOUNT_SUSPENDED", message: "This account is suspended.")
        case .throttled(let seconds):
            HTTPError(
                status: 429, code: "RATE_LIMITED", message: "Too many failed logins. Try again in \(seconds) seconds.",
                headers: HTTPHeaders([("Retry-After", String(seconds))]))
        }
    }
}
