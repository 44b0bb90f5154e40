public import Foundation
public import SyncProtocol

/// A user as the rest of the server sees it: never carries the password hash.
public struct UserAccount: Sendable, Codable, Equatable {
    public let id: String
    public let username: String
    public let role: Role
    public let teamId: String?
    public let suspended: Bool
    public let createdAt: Date

    public init(id: String, username: String, role: Role, teamId: String?, suspended: Bool, createdAt: Date) {
        self.id = id
        self.username = username
        self.role = role
        self.teamId = teamId
        self.suspended = suspended
        self.createdAt = createdAt
    }
}

/// A device token's owner and binding, as found by its hash.
public struct TokenGrant: Sendable {
    public let user: UserAccount
    public let deviceId: String
    public let expiresAt: Date

    public init(user: UserAccount, deviceId: String, expiresAt: Date) {
        self.user = user
        self.deviceId = deviceId
        self.expiresAt = expiresAt
    }
}

/// One device token, for listings in the back-office (never the token itself).
public struct DeviceTokenInfo: Sendable, Codable {
    public let tokenId: String
    public let userId: String
    public let username: String
    public let deviceId: String
    public let platform: String?
    public let appVersion: String?
    public let createdAt: Date
    public let expiresAt: Date
    public let revokedAt: Date?
    /// Whether the token's user still owns the device id (not released since).
    public let ownsDevice: Bool

    public init(
        tokenId: String, userId: String, username: String, deviceId: String, platform: String?, appVersion: String?, createdAt: Date,
        expiresAt: Date, revokedAt: Date?, ownsDevice: Bool
    ) {
        self.tokenId = tokenId
        self.userId = userId
        self.username = username
        self.deviceId = deviceId
        self.platform = platform
        self.appVersion = appVersion
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.revokedAt = revokedAt
        self.ownsDevice = ownsDevice
    }
}

/// Account operations that fail for reasons a person can fix.
public enum AccountError: Error, Equatable, CustomStringConvertible {
    case usernameTaken(String)
    case invalidUsername(String)
    case unknownUser(String)
    /// Another user owns this device id (the first to sign in with it).
    case deviceIdTaken(String)

    public var description: String {
        switch self {
        case .usernameTaken(let name): "user name \"\(name)\" is already taken"
        case .invalidUsername(let name): "\"\(name)\" is not a valid user name (1-64 letters, digits, . _ -)"
        case .unknownUser(let name): "no user named \"\(name)\""
        case .deviceIdTaken(let deviceId): "device id \"\(deviceId)\" belongs to another user"
        }
    }
}

extension UserAccount {
    /// The stable pseudo device of this user's back-office actions, `web:<userId>`: field-conflict
    /// detection treats back-office edits as another device's.
    public var backOfficeDeviceId: String { "web:\(id)" }
}
