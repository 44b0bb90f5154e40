import SyncProtocol

/// Turns an authenticated user into the engine's `Principal`, adding a supervisor's team
/// members (whose records it may read).
public struct PrincipalResolver: Sendable {
    let accounts: any AccountStore

    public init(accounts: any AccountStore) {
        self.accounts = accounts
    }

    /// The principal acting for `user` from `deviceId`; one query for a supervisor, none otherwise.
    public func principal(for user: UserAccount, deviceId: String) throws -> Principal {
        let members = user.role == .supervisor ? try user.teamId.map(accounts.memberIds) ?? [] : []
        return Principal(userId: user.id, role: user.role, teamId: user.teamId, deviceId: deviceId, teamMemberIds: members)
    }
}
