import Cryptography
public import Foundation
import Postgres
public import SyncEngine

/// The back-office's lists of users and device tokens, paged by keyset like the other
/// back-office lists (see `PageCursor`).
extension PostgresAccountStore {
    /// The user list's first page starts after this key: every user name sorts after "".
    private static let firstUser = PageCursor(["", ""])

    /// One page of users in user-name order (case-insensitive, as names are unique), each
    /// with how many of its devices hold a token live at `now`: the `limit` users after
    /// `after` (from the first when nil).
    ///
    /// The key is the unique `lower(username)`, which its index serves, with the id as a
    /// tie-breaker so the order stays total whatever the index says.
    /// - Throws: `PageCursor.Invalid` when `after` is not a cursor of this list.
    public func users(devicesLiveAt now: Date, after: PageCursor? = nil, limit: Int = 100) throws -> PageOf<ListedUser> {
        let key = try (after ?? Self.firstUser).checked([.text, .text])
        let rows = try database.connection { connection in
            try connection.query(
                """
                SELECT \(unescaped: Self.userColumns), lower(username) AS sort_name,
                       (SELECT count(DISTINCT t.device_id) FROM device_tokens t
                        WHERE t.user_id = users.id AND t.revoked_at IS NULL AND t.expires_at > \(now)) AS live_devices
                FROM users
                WHERE (lower(username), id) > (\(key[0]), \(key[1]))
                ORDER BY lower(username), id LIMIT \(limit + 1)
                """)
        }
        let fetched = try rows.map { row in
            (
                user: ListedUser(account: try Self.decodeUser(row), liveDevices: try row.decode("live_devices")),
                key: try row.decode("sort_name", as: String.self)
            )
        }
        return PageOf(fetched, limit: limit, row: \.user) { PageCursor([$0.key, $0.user.account.id]) }
    }

    /// The device list's first page starts after this key: `infinity` comes before every
    /// sign-in time in its newest-first order.
    private static let firstToken = PageCursor(["infinity", ""])

    /// One page of device tokens, newest sign-in first (ties by token id): the `limit` tokens
    /// after `after` (from the newest when nil); only those live at `liveAt` when it is given.
    /// - Throws: `PageCursor.Invalid` when `after` is not a cursor of this list.
    public func tokens(liveAt: Date?, after: PageCursor? = nil, limit: Int = 100) throws -> PageOf<DeviceTokenInfo> {
        let key = try (after ?? Self.firstToken).checked([.timestamp, .hex])
        let rows = try tokenRows(
            """
            \(unescaped: Self.tokenListing)
            WHERE (\(liveAt)::timestamptz IS NULL OR (t.revoked_at IS NULL AND t.expires_at > \(liveAt)))
              AND (t.created_at, t.token_hash) < (\(key[0])::timestamptz, decode(\(key[1]), 'hex'))
            ORDER BY t.created_at DESC, t.token_hash DESC LIMIT \(limit + 1)
            """)
        return PageOf(rows, limit: limit, row: \.token) { PageCursor([$0.key, $0.token.tokenId]) }
    }

    /// How many tokens there are, and how many of them are live at `now`.
    public func tokenCounts(liveAt now: Date) throws -> TokenCounts {
        let row = try database.connection { connection in
            try connection.query(
                """
                SELECT count(*) FILTER (WHERE revoked_at IS NULL AND expires_at > \(now)) AS live, count(*) AS all_tokens FROM device_tokens
                """)[0]
        }
        return TokenCounts(live: try row.decode("live"), all: try row.decode("all_tokens"))
    }

    /// Tokens, newest first; all users' when `userId` is nil.
    public func listTokens(userId: String? = nil) throws -> [DeviceTokenInfo] {
        try tokenRows(
            """
            \(unescaped: Self.tokenListing) WHERE \(userId)::text IS NULL OR t.user_id = \(userId)
            ORDER BY t.created_at DESC, t.token_hash DESC
            """
        ).map(\.token)
    }

    /// The token with the id listings show (the hex of its hash); nil when there is none.
    public func token(id: String) throws -> DeviceTokenInfo? {
        guard let hash = Data(hexString: id) else { return nil }
        return try tokenRows("\(unescaped: Self.tokenListing) WHERE t.token_hash = \(hash)").first?.token
    }

    /// Tokens with their owner's name. The id is hex-encoded by the server: decoding each
    /// hash to bytes only to encode it again was a noticeable share of the device pages' time.
    private static let tokenListing = """
        SELECT encode(t.token_hash, 'hex') AS token_id, t.user_id, u.username, t.device_id, t.platform, t.app_version,
               t.created_at, t.expires_at, t.revoked_at, \(KeyPart.timestampText("t.created_at")) AS created_key,
               EXISTS (SELECT 1 FROM devices d WHERE d.device_id = t.device_id AND d.user_id = t.user_id) AS owns_device
        FROM device_tokens t JOIN users u ON u.id = t.user_id
        """

    /// The tokens `query` (a `tokenListing` with its conditions) finds, with their sort keys' timestamps.
    private func tokenRows(_ query: PostgresQuery) throws -> [(token: DeviceTokenInfo, key: String)] {
        let rows = try database.connection { try $0.query(query) }
        return try rows.map { row in
            let token = DeviceTokenInfo(
                tokenId: try row.decode("token_id"), userId: try row.decode("user_id"),
                username: try row.decode("username"), deviceId: try row.decode("device_id"),
                platform: try row.decode("platform"), appVersion: try row.decode("app_version"),
                createdAt: try row.decode("created_at"), expiresAt: try row.decode("expires_at"),
                revokedAt: try row.decode("revoked_at"), ownsDevice: try row.decode("owns_device"))
            return (token, try row.decode("created_key", as: String.self))
        }
    }
}
