import Cryptography
import Foundation
public import HTTP
import Support
public import SyncEngine
import SyncProtocol
import Synchronization

/// The caller of a device endpoint, established from its bearer token.
public struct DeviceIdentity: Sendable {
    public let user: UserAccount
    public let deviceId: String
    /// The presented token, kept so the caller can revoke it.
    let token: String
}

/// Resolves `Authorization: Bearer …` to a `DeviceIdentity`.
///
/// Grants are cached for a short time because every device call needs one; the cache
/// is dropped on local revocation or suspension and on the accounts channel
/// notification from other processes, so a revoked token stops working at once here
/// and within `cacheLifetime` seconds anywhere.
public final class Authenticator: Sendable {
    private struct Entry {
        let grant: TokenGrant
        let fetched: Double
    }

    private let accounts: any AccountStore
    private let cacheLifetime: Double
    /// Grants by token hash, and a generation bumped by every `forgetAll()`: a grant read
    /// from the database before an invalidation must not be cached after it.
    private let cache = Mutex<(entries: [Data: Entry], generation: Int)>(([:], 0))

    public init(accounts: any AccountStore, cacheLifetime: Double = 2) {
        self.accounts = accounts
        self.cacheLifetime = cacheLifetime
    }

    /// - Throws: 401 `UNAUTHENTICATED` (missing, malformed, unknown, expired or revoked
    ///   token) or 403 `ACCOUNT_SUSPENDED`.
    public func authenticate(_ request: Request) throws -> DeviceIdentity {
        guard let header = request.headers["authorization"], header.lowercased().hasPrefix("bearer ") else {
            throw APIError.unauthenticated()
        }
        let token = String(header.dropFirst("bearer ".count)).trimmingCharacters(in: .whitespaces)
        guard !token.isEmpty, token.count <= 256, let grant = try grant(for: token), grant.expiresAt > Date() else {
            throw APIError.unauthenticated()
        }
        guard !grant.user.suspended else {
            throw APIError(.accountSuspended, "This account is suspended.")
        }
        return DeviceIdentity(user: grant.user, deviceId: grant.deviceId, token: token)
    }

    /// Whether `identity`'s token still authenticates: not revoked, not expired, and its
    /// user not suspended. Throws only when the database cannot tell.
    public func stillValid(_ identity: DeviceIdentity) throws -> Bool {
        guard let grant = try grant(for: identity.token) else { return false }
        return grant.expiresAt > Date() && !grant.user.suspended
    }

    /// Drops every cached grant (after a revocation or suspension).
    public func forgetAll() {
        cache.withLock { state in
            state.entries.removeAll()
            state.generation += 1
        }
    }

    private func grant(for token: String) throws -> TokenGrant? {
        let key = SHA256.hash(Data(token.utf8))
        let now = ProcessInfo.processInfo.systemUptime
        let (cached, generation) = cache.withLock { ($0.entries[key], $0.generation) }
        if let cached, now - cached.fetched < cacheLifetime {
            return cached.grant
        }
        guard let grant = try accounts.grant(token: token) else {
            cache.withLock { _ = $0.entries.removeValue(forKey: key) }
            return nil
        }
        cache.withLock { state in
            guard state.generation == generation else { return }
            if state.entries.count > 50_000 { state.entries.removeAll() }
            state.entries[key] = Entry(grant: grant, fetched: now)
        }
        return grant
    }
}
