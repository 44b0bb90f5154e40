public import Foundation

/// Back-office browser sessions: what the back-office needs from the database.
///
/// The session id is a secret only the browser's cookie holds; a store keeps a hash of it.
/// Times come from the caller (the back-office's clock), so expiry is decided by one clock
/// whether or not it agrees with the database's.
///
/// ```swift
/// let id = try sessions.create(userId: user.id, now: now, expiresAt: now + 12 * 3600)
/// let live = try sessions.touch(id: id, now: now, idleCutoff: now - 30 * 60)
/// ```
public protocol WebSessionStore: Sendable {
    /// Starts a session and returns its id (the cookie value), shown nowhere else.
    func create(userId: String, now: Date, expiresAt: Date) throws -> String

    /// Finds a live session and records the activity: nil when the id is unknown, the session
    /// ended at its absolute expiry, or it was last seen at or before `idleCutoff`.
    func touch(id: String, now: Date, idleCutoff: Date) throws -> WebSessionRecord?

    /// Finds a live session like ``touch(id:now:idleCutoff:)`` but without recording activity.
    func find(id: String, now: Date, idleCutoff: Date) throws -> WebSessionRecord?

    /// Ends one session (sign-out).
    func delete(id: String) throws

    /// Ends every session of a user; returns how many there were.
    @discardableResult
    func deleteAll(userId: String) throws -> Int

    /// Deletes sessions that can no longer be used; returns how many went.
    @discardableResult
    func purgeExpired(now: Date, idleCutoff: Date) throws -> Int
}

/// A live back-office session as found by its id.
public struct WebSessionRecord: Sendable, Equatable {
    public let userId: String
    public let createdAt: Date
    /// The absolute end of the session, however active it is.
    public let expiresAt: Date

    public init(userId: String, createdAt: Date, expiresAt: Date) {
        self.userId = userId
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}
