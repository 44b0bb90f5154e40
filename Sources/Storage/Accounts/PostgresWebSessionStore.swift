import Cryptography
public import Foundation
public import Postgres
public import SyncEngine

/// Back-office browser sessions in PostgreSQL.
///
/// The session id is a random 256-bit token that only the browser's cookie holds; the
/// table keeps its SHA-256. Times come from the caller (the back-office's clock), so
/// expiry is decided by one clock whether or not it agrees with the database's.
///
/// ```swift
/// let id = try sessions.create(userId: user.id, now: now, expiresAt: now + 12 * 3600)
/// let live = try sessions.touch(id: id, now: now, idleCutoff: now - 30 * 60)
/// ```
public final class PostgresWebSessionStore: WebSessionStore {
    private let database: PostgresClient

    public init(database: PostgresClient) {
        self.database = database
    }

    /// Starts a session and returns its id (the cookie value), shown nowhere else.
    public func create(userId: String, now: Date, expiresAt: Date) throws -> String {
        let id = SecureRandom.token()
        try database.connection { connection in
            _ = try connection.execute(
                """
                INSERT INTO web_sessions (id_hash, user_id, created_at, last_seen_at, expires_at)
                VALUES (\(Self.hash(id)), \(userId), \(now), \(now), \(expiresAt))
                """)
        }
        return id
    }

    /// Finds a live session and records the activity: nil when the id is unknown, the
    /// session ended at its absolute expiry, or it was last seen at or before `idleCutoff`.
    public func touch(id: String, now: Date, idleCutoff: Date) throws -> WebSessionRecord? {
        let rows = try database.connection { connection in
            try connection.query(
                """
                UPDATE web_sessions SET last_seen_at = \(now)
                WHERE id_hash = \(Self.hash(id)) AND expires_at > \(now) AND last_seen_at > \(idleCutoff)
                RETURNING user_id, created_at, expires_at
                """)
        }
        return try rows.first.map(Self.record)
    }

    /// Finds a live session like ``touch(id:now:idleCutoff:)`` but without recording activity.
    public func find(id: String, now: Date, idleCutoff: Date) throws -> WebSessionRecord? {
        let rows = try database.connection { connection in
            try connection.query(
                """
                SELECT user_id, created_at, expires_at FROM web_sessions
                WHERE id_hash = \(Self.hash(id)) AND expires_at > \(now) AND last_seen_at > \(idleCutoff)
                """)
        }
        return try rows.first.map(Self.record)
    }

    private static func record(_ row: PostgresRow) throws -> WebSessionRecord {
        WebSessionRecord(userId: try row.decode("user_id"), createdAt: try row.decode("created_at"), expiresAt: try row.decode("expires_at"))
    }

    /// Ends one session (sign-out); unknown ids are ignored.
    public func delete(id: String) throws {
        try database.connection { connection in
            _ = try connection.execute("DELETE FROM web_sessions WHERE id_hash = \(Self.hash(id))")
        }
    }

    /// Ends every session of a user (suspension, password reset); returns how many.
    @discardableResult
    public func deleteAll(userId: String) throws -> Int {
        try database.connection { connection in
            try connection.execute("DELETE FROM web_sessions WHERE user_id = \(userId)")
        }
    }

    /// Removes sessions that can no longer be used; returns how many.
    @discardableResult
    public func purgeExpired(now: Date, idleCutoff: Date) throws -> Int {
        try database.connection { connection in
            try connection.execute("DELETE FROM web_sessions WHERE expires_at <= \(now) OR last_seen_at <= \(idleCutoff)")
        }
    }

    static func hash(_ id: String) -> Data { SHA256.hash(Data(id.utf8)) }
}
