public import Foundation
public import SyncEngine
public import SyncProtocol
import Synchronization

/// An `AccountStore` in memory, held to `PostgresAccountStore`'s behaviour by the accounts
/// contract suite. Tokens are random and kept by value (there is no table to leak them from);
/// listings page with the same orders and cursors that only this store reads back.
public final class InMemoryAccountStore: AccountStore {
    private struct User {
        var account: UserAccount
        var passwordHash: String
    }

    private struct Token {
        var info: DeviceTokenInfo
        var token: String

        func isLive(at now: Date) -> Bool { info.revokedAt == nil && info.expiresAt > now }
    }

    private struct State {
        var users: [User] = []
        var tokens: [Token] = []
        /// Device id to the user who owns it.
        var owners: [String: String] = [:]

        func withOwnership(_ info: DeviceTokenInfo) -> DeviceTokenInfo {
            DeviceTokenInfo(
                tokenId: info.tokenId, userId: info.userId, username: info.username, deviceId: info.deviceId, platform: info.platform,
                appVersion: info.appVersion, createdAt: info.createdAt, expiresAt: info.expiresAt, revokedAt: info.revokedAt,
                ownsDevice: owners[info.deviceId] == info.userId)
        }

        mutating func revokeTokens(where matches: (Token) -> Bool) {
            for index in tokens.indices where matches(tokens[index]) && tokens[index].info.revokedAt == nil {
                let info = tokens[index].info
                tokens[index].info = DeviceTokenInfo(
                    tokenId: info.tokenId, userId: info.userId, username: info.username, deviceId: info.deviceId, platform: info.platform,
                    appVersion: info.appVersion, createdAt: info.createdAt, expiresAt: info.expiresAt, revokedAt: Date(), ownsDevice: true)
            }
        }
    }

    private let state = Mutex(State())

    public init() {}

    // MARK: Users and teams

    public func createUser(username: String, role: Role, teamId: String?, passwordHash: String) throws -> UserAccount {
        guard UserAccount.isValidUsername(username) else { throw AccountError.invalidUsername(username) }
        return try state.withLock { state in
            guard !state.users.contains(where: { $0.account.username.lowercased() == username.lowercased() }) else {
                throw AccountError.usernameTaken(username)
            }
            let account = UserAccount(
                id: "u-" + UUID().uuidString.prefix(8).lowercased(), username: username, role: role, teamId: teamId, suspended: false,
                createdAt: Date())
            state.users.append(User(account: account, passwordHash: passwordHash))
            return account
        }
    }

    public func credentials(username: String) throws -> (user: UserAccount, passwordHash: String)? {
        state.withLock { $0.users.first { $0.account.username.lowercased() == username.lowercased() }.map { ($0.account, $0.passwordHash) } }
    }

    public func user(id: String) throws -> UserAccount? {
        state.withLock { $0.users.first { $0.account.id == id }?.account }
    }

    public func listUsers() throws -> [UserAccount] {
        state.withLock { $0.users.map(\.account).sorted { $0.username.lowercased() < $1.username.lowercased() } }
    }

    public func countUsers() throws -> Int { state.withLock { $0.users.count } }

    @discardableResult
    public func setSuspended(username: String, _ suspended: Bool) throws -> UserAccount {
        try state.withLock { state in
            guard let index = state.users.firstIndex(where: { $0.account.username.lowercased() == username.lowercased() }) else {
                throw AccountError.unknownUser(username)
            }
            let old = state.users[index].account
            state.users[index].account = UserAccount(
                id: old.id, username: old.username, role: old.role, teamId: old.teamId, suspended: suspended, createdAt: old.createdAt)
            if suspended { state.revokeTokens { $0.info.userId == old.id } }
            return state.users[index].account
        }
    }

    public func setPasswordHash(userId: String, _ passwordHash: String) throws {
        state.withLock { state in
            for index in state.users.indices where state.users[index].account.id == userId { state.users[index].passwordHash = passwordHash }
            state.revokeTokens { $0.info.userId == userId }
        }
    }

    public func memberIds(teamId: String) throws -> [String] {
        state.withLock { $0.users.filter { $0.account.teamId == teamId }.map(\.account.id).sorted() }
    }

    // MARK: Device tokens

    public func issueToken(
        userId: String, deviceId: String, platform: String?, appVersion: String?, lifetime: TimeInterval
    ) throws -> (token: String, expiresAt: Date) {
        let (token, now) = (UUID().uuidString + UUID().uuidString, Date())
        let expiresAt = now.addingTimeInterval(lifetime)
        try state.withLock { state in
            guard let owner = state.users.first(where: { $0.account.id == userId }) else { throw AccountError.unknownUser(userId) }
            guard state.owners[deviceId, default: userId] == userId else { throw AccountError.deviceIdTaken(deviceId) }
            state.owners[deviceId] = userId
            let info = DeviceTokenInfo(
                tokenId: UUID().uuidString.lowercased(), userId: userId, username: owner.account.username, deviceId: deviceId,
                platform: platform, appVersion: appVersion, createdAt: now, expiresAt: expiresAt, revokedAt: nil, ownsDevice: true)
            state.tokens.append(Token(info: info, token: token))
        }
        return (token, expiresAt)
    }

    public func grant(token: String) throws -> TokenGrant? {
        state.withLock { state in
            // A suspended user's revoked token keeps its grant, so the device learns of the
            // suspension (403) rather than of a sign-out.
            guard let found = state.tokens.first(where: { $0.token == token && $0.info.expiresAt > Date() }),
                let owner = state.users.first(where: { $0.account.id == found.info.userId }),
                found.info.revokedAt == nil || owner.account.suspended, state.owners[found.info.deviceId] == owner.account.id
            else { return nil }
            return TokenGrant(user: owner.account, deviceId: found.info.deviceId, expiresAt: found.info.expiresAt)
        }
    }

    @discardableResult
    public func revoke(token: String) throws -> Bool {
        revoke { $0.token == token }
    }

    @discardableResult
    public func revoke(tokenId: String) throws -> Bool {
        revoke { $0.info.tokenId == tokenId }
    }

    private func revoke(where matches: (Token) -> Bool) -> Bool {
        state.withLock { state in
            guard let index = state.tokens.firstIndex(where: { matches($0) && $0.info.revokedAt == nil }) else { return false }
            let tokenId = state.tokens[index].info.tokenId
            state.revokeTokens { $0.info.tokenId == tokenId }
            return true
        }
    }

    // MARK: Device ownership

    public func releaseDevice(_ deviceId: String, ownedBy ownerId: String, by actorId: String?) throws -> String? {
        state.withLock { state in
            guard state.owners[deviceId] == ownerId else { return nil }
            let retired = DeviceRelease.retiredId(deviceId, suffix: String(UUID().uuidString.prefix(8)).lowercased())
            state.owners[retired] = state.owners.removeValue(forKey: deviceId)
            state.revokeTokens { $0.info.deviceId == deviceId }
            return retired
        }
    }

    public func deviceOwner(_ deviceId: String) throws -> String? {
        state.withLock { $0.owners[deviceId] }
    }

    // MARK: Back-office listings

    public func users(devicesLiveAt now: Date, after: PageCursor?, limit: Int) throws -> PageOf<ListedUser> {
        let key = try Self.checked(after, default: ["", ""])
        return state.withLock { state in
            let rows = state.users
                .map { user in
                    let live = Set(state.tokens.filter { $0.info.userId == user.account.id && $0.isLive(at: now) }.map(\.info.deviceId))
                    return (
                        listed: ListedUser(account: user.account, liveDevices: live.count),
                        key: [user.account.username.lowercased(), user.account.id]
                    )
                }
                .filter { $0.key.lexicographicallyPrecedes(key) == false && $0.key != key }
                .sorted { $0.key.lexicographicallyPrecedes($1.key) }
            return PageOf(Array(rows.prefix(limit + 1)), limit: limit, row: \.listed) { PageCursor($0.key) }
        }
    }

    public func tokens(liveAt: Date?, after: PageCursor?, limit: Int) throws -> PageOf<DeviceTokenInfo> {
        let key = try after.map { try Self.checked($0, default: []) }
        let rows = try listTokens(userId: nil)
            .filter { token in liveAt.map { token.revokedAt == nil && token.expiresAt > $0 } ?? true }
            .filter { token in key.map { Self.newestFirst(Self.key(of: token), before: $0) == false && Self.key(of: token) != $0 } ?? true }
        return PageOf(Array(rows.prefix(limit + 1)), limit: limit, row: { $0 }) { PageCursor(Self.key(of: $0)) }
    }

    public func tokenCounts(liveAt now: Date) throws -> TokenCounts {
        state.withLock { TokenCounts(live: $0.tokens.filter { $0.isLive(at: now) }.count, all: $0.tokens.count) }
    }

    public func listTokens(userId: String?) throws -> [DeviceTokenInfo] {
        state.withLock { state in
            state.tokens.map { state.withOwnership($0.info) }.filter { userId == nil || $0.userId == userId }
                .sorted { Self.newestFirst(Self.key(of: $0), before: Self.key(of: $1)) }
        }
    }

    public func token(id: String) throws -> DeviceTokenInfo? {
        state.withLock { state in state.tokens.first { $0.info.tokenId == id }.map { state.withOwnership($0.info) } }
    }

    /// A token's place in the newest-first order: its sign-in time (as a sortable number), then its id.
    private static func key(of token: DeviceTokenInfo) -> [String] {
        [String(format: "%020.6f", token.createdAt.timeIntervalSince1970), token.tokenId]
    }

    private static func newestFirst(_ lhs: [String], before rhs: [String]) -> Bool { rhs.lexicographicallyPrecedes(lhs) }

    private static func checked(_ cursor: PageCursor?, default first: [String]) throws -> [String] {
        guard let cursor else { return first }
        guard cursor.values.count == 2 else { throw PageCursor.Invalid() }
        return cursor.values
    }
}
