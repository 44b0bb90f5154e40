/// `POST /v1/auth/token` request.
public struct TokenRequest: Codable, Sendable, Hashable {
    public var username: String
    public var password: String
    public var deviceId: String
    public var platform: String?
    public var appVersion: String?

    public init(username: String, password: String, deviceId: String, platform: String? = nil, appVersion: String? = nil) {
        self.username = username
        self.password = password
        self.deviceId = deviceId
        self.platform = platform
        self.appVersion = appVersion
    }
}

/// The user a token belongs to.
public struct UserInfo: Codable, Sendable, Hashable {
    public var id: String
    public var username: String
    public var role: Role
    public var teamId: String?

    public init(id: String, username: String, role: Role, teamId: String? = nil) {
        self.id = id
        self.username = username
        self.role = role
        self.teamId = teamId
    }
}

/// `POST /v1/auth/token` response.
public struct TokenResponse: Codable, Sendable, Hashable {
    public var token: String
    /// RFC 3339.
    public var expiresAt: String
    public var user: UserInfo

    public init(token: String, expiresAt: String, user: UserInfo) {
        self.token = token
        self.expiresAt = expiresAt
        self.user = user
    }
}

/// `GET /v1/config` response: limits and settings a device needs, plus the schema.
public struct ConfigResponse: Codable, Sendable, Hashable {
    public var minSupportedAppVersion: String
    public var serverSchemaVersion: Int
    public var maxOpsPerPush: Int
    public var maxPullLimit: Int
    public var chunkBytes: Int
    public var maxAttachmentBytes: Int
    public var maxAttachmentBytesPerRecord: Int
    public var localRetentionDays: Int
    /// The collection declarations (SyncEngine's `Schema.collectionsDocument()`).
    public var collections: JSONValue

    public init(
        minSupportedAppVersion: String, serverSchemaVersion: Int, maxOpsPerPush: Int = 50, maxPullLimit: Int = 500,
        chunkBytes: Int = 262_144, maxAttachmentBytes: Int = 52_428_800, maxAttachmentBytesPerRecord: Int = 157_286_400,
        localRetentionDays: Int = 14, collections: JSONValue
    ) {
        self.minSupportedAppVersion = minSupportedAppVersion
        self.serverSchemaVersion = serverSchemaVersion
        self.maxOpsPerPush = maxOpsPerPush
        self.maxPullLimit = maxPullLimit
        self.chunkBytes = chunkBytes
        self.maxAttachmentBytes = maxAttachmentBytes
        self.maxAttachmentBytesPerRecord = maxAttachmentBytesPerRecord
        self.localRetentionDays = localRetentionDays
        self.collections = collections
    }
}

/// `GET /v1/health` response.
public struct HealthResponse: Codable, Sendable, Hashable {
    /// `ok`, or `unavailable` when the database cannot be reached.
    public var status: String
    public var database: String
    public var version: String

    public init(status: String, database: String, version: String) {
        self.status = status
        self.database = database
        self.version = version
    }
}
