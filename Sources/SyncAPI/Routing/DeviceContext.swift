import Foundation
public import HTTP
public import SyncEngine

/// What a device route checks before its handler runs.
public enum DeviceAdmission: Sendable {
    /// A bearer token that authenticates: 401 `UNAUTHENTICATED`, or 403 `ACCOUNT_SUSPENDED`.
    case authenticated
    /// The token, then the sync gate (PROTOCOL.md, Gating): 503 `MAINTENANCE`, 426
    /// `UPGRADE_REQUIRED`, 429 `RATE_LIMITED`.
    case sync
    /// `sync` for the report contract, whose apps send their version in the body's `appVersion`:
    /// the gate reads it there when `X-App-Version` is absent.
    case reportSync
}

/// A device call that passed its admission: what device handlers receive.
public struct DeviceContext: Sendable {
    public let request: Request
    /// Who called, from which device.
    public let identity: DeviceIdentity
    /// The operator's settings in force for this call.
    public let settings: ServerSettings
    let principals: PrincipalResolver

    /// The caller as the engine's principal. Resolving a supervisor's team costs a query, so
    /// it happens only when a handler asks.
    public func principal() throws -> Principal {
        try principals.principal(for: identity.user, deviceId: identity.deviceId)
    }

    /// The version the app reported (`X-App-Version`), if it did.
    public var appVersion: String? { request.headers["x-app-version"] }
}

/// The checks of every device route, built once per server: authentication, the sync gate,
/// and the settings and principal a handler is given.
public struct DeviceAccess: Sendable {
    public let authenticator: Authenticator
    let principals: PrincipalResolver
    let gate: SyncGate
    let settings: any SettingsStore

    public init(authenticator: Authenticator, principals: PrincipalResolver, gate: SyncGate, settings: any SettingsStore) {
        self.authenticator = authenticator
        self.principals = principals
        self.gate = gate
        self.settings = settings
    }

    /// Authenticates `request` and, for sync calls, admits it through the gate.
    /// - Throws: `APIError` with the codes of ``DeviceAdmission``.
    func admit(_ request: Request, _ admission: DeviceAdmission) throws -> DeviceContext {
        let identity = try authenticator.authenticate(request)
        let settings =
            switch admission {
            case .authenticated: try settings.current()
            case .sync: try gate.admit(identity: identity, appVersion: request.headers["x-app-version"])
            case .reportSync:
                try gate.admit(identity: identity, appVersion: request.headers["x-app-version"] ?? ReportedVersion.inBody(of: request))
            }
        return DeviceContext(request: request, identity: identity, settings: settings, principals: principals)
    }
}

/// The report contract's `appVersion`, read from the JSON body before the handler decodes it.
private struct ReportedVersion: Decodable {
    let appVersion: String?

    /// The body's `appVersion`; nil when the body or the member cannot be read, which the gate
    /// treats like any unreadable version.
    static func inBody(of request: Request) -> String? {
        (try? JSONDecoder().decode(Self.self, from: request.body))?.appVersion
    }
}
