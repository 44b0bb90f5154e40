import Cryptography
public import Foundation
public import Postgres
public import SyncEngine
public import SyncProtocol

/// Users, teams and device tokens in PostgreSQL.
public final class PostgresAccountStore: AccountStore {
    let database: PostgresClient

    public init(database: PostgresClient) {
        self.database = database
    }

    // MARK: - Users and teams

    /// Creates a user (and its team when missing; a team's id is its name).
    /// - Throws: `AccountError.usernameTaken` or `.invalidUsername`.
    public func createUser(username: String, role: Role, teamId: String?, passwordHash: String) throws -> UserAccount {
        guard UserAccount.isValidUsername(username) else { throw AccountError.invalidUsername(username) }
        let id = "u-" + SecureRandom.bytes(8).hexString
        do {
            return try database.transaction { connection in
                if let teamId {
                    try connection.execute("INSERT INTO teams (id) VALUES (\(teamId)) ON CONFLICT DO NOTHING")
                }
                let rows = try connection.query(
                    """
                    INSERT INTO users (id, username, role, team_id, password_hash)
                    VALUES (\(id), \(username), \(role.rawValue), \(teamId), \(passwordHash))
                    RETURNING \(unescaped: Self.userColumns)
                    """)
                return try Self.decodeUser(rows[0])
            }
        } catch let error as PostgresError where error.code == .uniqueViolation {
            throw AccountError.usernameTaken(username)
        }
    }

    /// The user and stored password hash for a login name, matched case-insensitively.
    public func credentials(username: String) throws -> (user: UserAccount, passwordHash: String)? {
        let rows = try database.connection { connection in
            try connection.query(
                """
                SELECT \(unescaped: Self.userColumns), password_hash FROM users WHERE lower(username) = lower(\(username))
                """)
        }
        guard let row = rows.first else { return nil }
        return (try Self.decodeUser(row), try row.decode("password_hash", as: String.self))
    }

    public func user(id: String) throws -> UserAccount? {
        let rows = try database.connection { connection in
            try connection.query("SELECT \(unescaped: Self.userColumns) FROM users WHERE id = \(id)")
        }
        return try rows.first.map(Self.decodeUser)
    }

    /// Every user, ordered by user name: the command line's listing (the back-office pages
    /// through `users(devicesLiveAt:after:limit:)`).
    public func listUsers() throws -> [UserAccount] {
        let rows = try database.connection { connection in
            try connection.query("SELECT \(unescaped: Self.userColumns) FROM users ORDER BY lower(username)")
        }
        return try rows.map(Self.decodeUser)
    }

    public func countUsers() throws -> Int {
        try database.connection { connection in
            try connection.query("SELECT count(*) AS n FROM users")[0].decode("n", as: Int.self)
        }
    }

    /// Suspends or reactivates a user; suspending also revokes the user's device tokens, so
    /// a device gets 403 until reactivation and must sign in again after it.
    @discardableResult
    public func setSuspended(username: String, _ suspended: Bool) throws -> UserAccount {
        let rows = try database.transaction { connection in
            try Self.announceChange(connection)
            let rows = try connection.query(
                """
                UPDATE users SET suspended = \(suspended) WHERE lower(username) = lower(\(username))
                RETURNING \(unescaped: Self.userColumns)
                """)
            if suspended, let row = rows.first { try Self.revokeTokens(userId: try row.decode("id"), connection) }
            return rows
        }
        guard let row = rows.first else { throw AccountError.unknownUser(username) }
        return try Self.decodeUser(row)
    }

    /// Replaces the password hash and revokes the user's device tokens in one transaction.
    public func setPasswordHash(userId: String, _ passwordHash: String) throws {
        try database.transaction { connection in
            try Self.announceChange(connection)
            _ = try connection.execute("UPDATE users SET password_hash = \(passwordHash) WHERE id = \(userId)")
            try Self.revokeTokens(userId: userId, connection)
        }
    }

    /// Ids of the members of a team (a supervisor's view of scopes).
    public func memberIds(teamId: String) throws -> [String] {
        try database.connection { connection in
            try connection.query("SELECT id FROM users WHERE team_id = \(teamId) ORDER BY id").map {
                try $0.decode("id", as: String.self)
            }
        }
    }

    // MARK: - Device tokens

    /// Issues a random 256-bit token for a device; only its SHA-256 is stored. The first
    /// sign-in with a device id claims the device for the user, in the same transaction.
    /// - Throws: `AccountError.deviceIdTaken` when another user owns the device id.
    public func issueToken(
        userId: String, deviceId: String, platform: String?, appVersion: String?, lifetime: TimeInterval
    ) throws -> (token: String, expiresAt: Date) {
        let token = SecureRandom.token()
        let expiresAt = Date(timeIntervalSinceNow: lifetime)
        try database.transaction { connection in
            // The upsert locks an existing row, so two first sign-ins cannot both claim it.
            let owner = try connection.query(
                """
                INSERT INTO devices (device_id, user_id, platform, app_version) VALUES (\(deviceId), \(userId), \(platform), \(appVersion))
                ON CONFLICT (device_id) DO UPDATE SET user_id = COALESCE(devices.user_id, excluded.user_id)
                RETURNING user_id
                """)[0].decode("user_id", as: String.self)
            guard owner == userId else { throw AccountError.deviceIdTaken(deviceId) }
            _ = try connection.execute(
                """
                INSERT INTO device_tokens (token_hash, user_id, device_id, platform, app_version, expires_at)
                VALUES (\(Self.hash(token)), \(userId), \(deviceId), \(platform), \(appVersion), \(expiresAt))
                """)
        }
        return (token, expiresAt)
    }

    /// The live grant of a token: nil when unknown, revoked, expired, or its user no longer
    /// owns the device. A suspended user's revoked token still has its grant, so the device
    /// learns of the suspension (403) rather than of a sign-out.
    public func grant(token: String) throws -> TokenGrant? {
        let rows = try database.connection { connection in
            try connection.query(
                """
                SELECT u.id, u.username, u.role, u.team_id, u.suspended, u.created_at, t.device_id, t.expires_at
                FROM device_tokens t JOIN users u ON u.id = t.user_id
                JOIN devices d ON d.device_id = t.device_id AND d.user_id = t.user_id
                WHERE t.token_hash = \(Self.hash(token)) AND (t.revoked_at IS NULL OR u.suspended) AND t.expires_at > now()
                """)
        }
        guard let row = rows.first else { return nil }
        return TokenGrant(
            user: try Self.decodeUser(row), deviceId: try row.decode("device_id"), expiresAt: try row.decode("expires_at"))
    }

    /// Revokes one token; returns whether it was live.
    @discardableResult
    public func revoke(token: String) throws -> Bool {
        try revoke(tokenId: Self.hash(token).hexString)
    }

    /// Revokes a token by the id shown in listings (the hex of its hash).
    @discardableResult
    public func revoke(tokenId: String) throws -> Bool {
        guard let hash = Data(hexString: tokenId) else { return false }
        return try database.transaction { connection in
            try Self.announceChange(connection)
            return try connection.execute(
                """
                UPDATE device_tokens SET revoked_at = now() WHERE token_hash = \(hash) AND revoked_at IS NULL
                """) > 0
        }
    }

    // MARK: - Helpers

    /// The channel on which suspensions and revocations are announced at commit, so
    /// every server process drops its cached token grants.
    public static let changeChannel = "fieldsync_accounts"

    static func announceChange(_ connection: PostgresConnection) throws {
        try connection.query("SELECT pg_notify(\(changeChannel), '')")
    }

    /// Revokes every live token of the user (the caller announces the change).
    static func revokeTokens(userId: String, _ connection: PostgresConnection) throws {
        _ = try connection.execute("UPDATE device_tokens SET revoked_at = now() WHERE user_id = \(userId) AND revoked_at IS NULL")
    }

    static let userColumns = "id, username, role, team_id, suspended, created_at"

    static func hash(_ token: String) -> Data { SHA256.hash(Data(token.utf8)) }

    static func decodeUser(_ row: PostgresRow) throws -> UserAccount {
        let roleName = try row.decode("role", as: String.self)
        guard let role = Role(rawValue: roleName) else {
            throw PostgresError(code: .decoding, message: "unknown role \(roleName)")
        }
        return UserAccount(
            id: try row.decode("id"), username: try row.decode("username"), role: role,
            teamId: try row.decode("team_id"), suspended: try row.decode("suspended"), createdAt: try row.decode("created_at"))
    }
}
