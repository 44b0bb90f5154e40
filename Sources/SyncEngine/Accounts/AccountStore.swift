public import Foundation
public import SyncProtocol

/// Users, teams and device tokens: what accounts need from the database.
///
/// Storage implements it on PostgreSQL (`PostgresAccountStore`). Tokens are stored hashed;
/// only `issueToken` ever sees one in the clear.
///
/// ```swift
/// let ana = try accounts.createUser(username: "ana", role: .field, teamId: "north", passwordHash: hash)
/// let issued = try accounts.issueToken(userId: ana.id, deviceId: "dev-1", platform: "ios", appVersion: "2.3.0", lifetime: 86_400)
/// let grant = try accounts.grant(token: issued.token)   // ana, dev-1
/// ```
public protocol AccountStore: Sendable {
    // MARK: Users and teams

    /// Creates a user (and its team when missing; a team's id is its name).
    /// - Throws: `AccountError.usernameTaken` or `.invalidUsername`.
    func createUser(username: String, role: Role, teamId: String?, passwordHash: String) throws -> UserAccount

    /// The user and stored password hash for a login name, matched case-insensitively.
    func credentials(username: String) throws -> (user: UserAccount, passwordHash: String)?

    func user(id: String) throws -> UserAccount?

    /// Every user, ordered by user name (the command line's listing).
    func listUsers() throws -> [UserAccount]

    func countUsers() throws -> Int

    /// Suspends or reactivates a user. Suspending revokes the user's device tokens: a
    /// device's next call gets 403, and after reactivation it must sign in again. Announced
    /// to every server process, which drop their cached token grants.
    /// - Throws: `AccountError.unknownUser`.
    @discardableResult
    func setSuspended(username: String, _ suspended: Bool) throws -> UserAccount

    /// Replaces the password and revokes the user's device tokens (announced like a suspension).
    func setPasswordHash(userId: String, _ passwordHash: String) throws

    /// Ids of the members of a team (a supervisor's view of scopes).
    func memberIds(teamId: String) throws -> [String]

    // MARK: Device tokens

    /// Issues a random 256-bit token for a device; only its hash is stored. The first
    /// sign-in with a device id makes the user its owner.
    /// - Throws: `AccountError.deviceIdTaken` when another user owns the device id.
    func issueToken(
        userId: String, deviceId: String, platform: String?, appVersion: String?, lifetime: TimeInterval
    ) throws -> (token: String, expiresAt: Date)

    /// The live grant of a token: nil when unknown, revoked, expired, or when its user no
    /// longer owns the device.
    func grant(token: String) throws -> TokenGrant?

    /// Releases a device id owned by `ownerId` (see ``DeviceRelease``): its history moves to
    /// a retired id, its tokens are revoked, and the release is audited with `actorId`.
    /// - Returns: the retired id; nil when `ownerId` does not own `deviceId`.
    func releaseDevice(_ deviceId: String, ownedBy ownerId: String, by actorId: String?) throws -> String?

    /// The user who owns `deviceId`; nil when nobody signed in with it yet.
    func deviceOwner(_ deviceId: String) throws -> String?

    /// Revokes one token; returns whether it was live. Announced like a suspension.
    @discardableResult
    func revoke(token: String) throws -> Bool

    /// Revokes a token by the id listings show; returns whether it was live.
    @discardableResult
    func revoke(tokenId: String) throws -> Bool

    // MARK: Back-office listings

    /// One page of users in user-name order, each with how many of its devices hold a token
    /// live at `now`.
    /// - Throws: `PageCursor.Invalid` when `after` is not a cursor of this list.
    func users(devicesLiveAt now: Date, after: PageCursor?, limit: Int) throws -> PageOf<ListedUser>

    /// One page of device tokens, newest sign-in first; only those live at `liveAt` when given.
    /// - Throws: `PageCursor.Invalid` when `after` is not a cursor of this list.
    func tokens(liveAt: Date?, after: PageCursor?, limit: Int) throws -> PageOf<DeviceTokenInfo>

    /// How many tokens there are, and how many of them are live at `now`.
    func tokenCounts(liveAt now: Date) throws -> TokenCounts

    /// Tokens, newest first; all users' when `userId` is nil.
    func listTokens(userId: String?) throws -> [DeviceTokenInfo]

    /// The token with the id listings show; nil when there is none.
    func token(id: String) throws -> DeviceTokenInfo?
}

/// A user as the back-office's user list shows it.
public struct ListedUser: Sendable {
    public var account: UserAccount
    /// Devices that hold a live sign-in token (neither revoked nor expired) at the time the
    /// list was asked for.
    public var liveDevices: Int

    public init(account: UserAccount, liveDevices: Int) {
        self.account = account
        self.liveDevices = liveDevices
    }
}

/// How many device tokens the back-office's device list holds, across its pages.
public struct TokenCounts: Sendable, Equatable {
    /// Tokens neither revoked nor expired.
    public var live: Int
    public var all: Int

    public init(live: Int, all: Int) {
        self.live = live
        self.all = all
    }
}
