import Storage
import SyncEngine

/// Turns an authenticated caller into the engine's `Principal`, adding a supervisor's
/// team members (whose records it may read).
public struct PrincipalResolver: Sendable {
    let accounts: AccountStore

    public init(accounts: AccountStore) {
        self.accounts = accounts
    }

    public func principal(for user: UserAccount, deviceId: String) throws -> Principal {
        let members = user.role == .supervisor ? try user.teamId.map(accounts.memberIds) ?? [] : []
        return Principal(userId: user.id, role: user.role, teamId: user.teamId, deviceId: deviceId, teamMemberIds: members)
    }

    public func principal(for identity: DeviceIdentity) throws -> Principal {
        try principal(for: identity.user, deviceId: identity.deviceId)
    }
}
