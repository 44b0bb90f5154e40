public import SyncEngine

/// A signed-in browser: who it is and the token its forms must carry.
public struct WebSession: Sendable {
    /// The session id from the cookie (a secret; never rendered).
    let id: String
    public let user: UserAccount
    /// The CSRF token embedded in every form of this session.
    public let csrfToken: String

    /// The signed-in user as the engine's actor. The stable pseudo device `web:<userId>`
    /// makes field-conflict detection treat back-office edits as another device's.
    var principal: Principal {
        Principal(userId: user.id, role: user.role, teamId: user.teamId, deviceId: user.backOfficeDeviceId)
    }
}

/// What a request's session cookie leads to.
enum SessionLookup: Sendable {
    /// No session cookie.
    case none
    /// A cookie whose session is over: expired, signed out, or its user may no longer sign in.
    case ended
    case live(WebSession)
}
