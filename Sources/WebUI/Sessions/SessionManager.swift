import Foundation
import HTTP
import SyncEngine

/// Starts, finds and ends back-office sessions, timing them with the configured clock.
final class SessionManager: Sendable {
    private let store: any WebSessionStore
    private let accounts: any AccountStore
    private let csrf: CSRFProtection
    private let configuration: WebConfiguration

    init(store: any WebSessionStore, accounts: any AccountStore, csrf: CSRFProtection, configuration: WebConfiguration) {
        self.store = store
        self.accounts = accounts
        self.csrf = csrf
        self.configuration = configuration
    }

    /// Starts a session for `user` and returns its id for the cookie. Sessions that can
    /// no longer be used are purged on the way, so the table stays small.
    func signIn(_ user: UserAccount) throws -> String {
        let now = configuration.now()
        try store.purgeExpired(now: now, idleCutoff: now - configuration.idleTimeout)
        return try store.create(userId: user.id, now: now, expiresAt: now + configuration.absoluteTimeout)
    }

    /// The session of `request`, extending its idle window when it is live.
    ///
    /// A session whose user was suspended, or no longer has a back-office role, is
    /// deleted and reported as ended.
    func lookup(_ request: Request) throws -> SessionLookup {
        guard let id = request.cookies[Cookies.session], !id.isEmpty, id.count <= 128 else { return .none }
        let now = configuration.now()
        guard let record = try store.touch(id: id, now: now, idleCutoff: now - configuration.idleTimeout) else { return .ended }
        guard let user = try signedInUser(record) else {
            try store.delete(id: id)
            return .ended
        }
        return .live(WebSession(id: id, user: user, csrfToken: csrf.token(for: id, purpose: .session)))
    }

    /// Whether `session` still holds, without counting the question as activity: an open
    /// live feed asks this while the dashboard sits idle.
    func isLive(_ session: WebSession) throws -> Bool {
        let now = configuration.now()
        guard let record = try store.find(id: session.id, now: now, idleCutoff: now - configuration.idleTimeout) else { return false }
        return try signedInUser(record) != nil
    }

    /// The session's user while they may still use the back-office: not suspended, and in a back-office role.
    private func signedInUser(_ record: WebSessionRecord) throws -> UserAccount? {
        guard let user = try accounts.user(id: record.userId), !user.suspended, AccessPolicy.canSignIn(user.role) else { return nil }
        return user
    }

    /// Whether a form posted in `session` carries its CSRF token.
    func verifies(_ form: FormData, in session: WebSession) -> Bool {
        csrf.verify(form[CSRFProtection.fieldName], for: session.id, purpose: .session)
    }

    /// Ends `session` (sign-out).
    func signOut(_ session: WebSession) throws {
        try store.delete(id: session.id)
    }

    /// Ends every session of a user, e.g. after suspension or a password reset.
    func signOutEverywhere(userId: String) throws {
        try store.deleteAll(userId: userId)
    }
}
