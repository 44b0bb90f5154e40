public import SyncAPI
public import SyncEngine
public import WebUI

/// Accounts and sessions: device sign-in (`/v1/auth/token`), back-office sign-in, and the
/// pages of users and their devices.
public struct AccountsFeature: Feature {
    let core: Core
    /// Password login, shared by devices and the back-office (one throttle for both).
    public let login: LoginService

    init(_ core: Core) {
        self.core = core
        login = LoginService(accounts: core.accounts, hasher: core.passwords, throttling: core.configuration.loginThrottling)
    }

    public func routes(on api: APIRoutes) {
        AuthController(login: login, accounts: core.accounts, settings: core.settings, authenticator: core.authenticator).register(on: api)
    }

    public func pages(on backOffice: BackOfficePages) {
        backOffice.addAccountPages(accounts: core.accounts, login: login, passwords: core.passwords)
    }
}
