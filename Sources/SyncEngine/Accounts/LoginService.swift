public import Cryptography
import Foundation
public import Support

/// Password login shared by the device token endpoint and the back-office: the same answer
/// for an unknown user and a wrong password, and the same time spent on both.
///
/// Failures slow further attempts down (``Throttling``) with delays that grow, never a lock:
/// per user name and client address together (the guesser), per client address (one source
/// guessing many names) and, with a short cap, per user name from anywhere (many sources
/// guessing one name), so nobody can lock `admin` out. Only so many password hashes run at once.
public final class LoginService: Sendable {
    public enum Failure: Error, Equatable {
        case invalidCredentials
        case suspended
        /// Too many recent failures; retry after this many seconds.
        case throttled(retryAfter: Int)
        /// Every password-hash slot stayed busy; retry after this many seconds.
        case busy(retryAfter: Int)
    }

    /// How failed logins slow down further ones, and how many hashes may run at once.
    public struct Throttling: Sendable {
        /// Per user name from one address: 5 free failures, then 30 s doubling to 15 minutes.
        public var perUserAndAddress = FailureThrottle.Rule(freeFailures: 5, baseDelay: 30, maxDelay: 900)
        /// Per client address: 30 free failures, then 30 s doubling to 15 minutes.
        public var perAddress = FailureThrottle.Rule(freeFailures: 30, baseDelay: 30, maxDelay: 900)
        /// Per user name from anywhere: 10 free failures, then 2 s doubling to at most 60 s,
        /// the longest anyone else's failures can make the rightful user wait.
        public var perUsername = FailureThrottle.Rule(freeFailures: 10, baseDelay: 2, maxDelay: 60)
        /// Keys each throttle table holds before dropping the least recently used. Default 100 000.
        public var maxKeys = 100_000
        /// Password hashes verified at once (`FIELDSYNC_MAX_CONCURRENT_LOGINS`); default 4.
        public var concurrentHashes = 4
        /// How long a login waits for a hash slot before 503 `SERVER_BUSY`. Default 5 s.
        public var hashWait: Duration = .seconds(5)

        public init() {}
    }

    /// The longest user name any account can have; longer ones fail at once, costing no hash.
    public static let maxUsernameLength = 64

    private let accounts: any AccountStore
    private let hasher: PasswordHasher
    private let perUserAndAddress: FailureThrottle
    private let perAddress: FailureThrottle
    private let perUsername: FailureThrottle
    private let hashes: ConcurrencyGate

    public init(accounts: any AccountStore, hasher: PasswordHasher, throttling: Throttling = Throttling()) {
        self.accounts = accounts
        self.hasher = hasher
        perUserAndAddress = FailureThrottle(rule: throttling.perUserAndAddress, maxKeys: throttling.maxKeys)
        perAddress = FailureThrottle(rule: throttling.perAddress, maxKeys: throttling.maxKeys)
        perUsername = FailureThrottle(rule: throttling.perUsername, maxKeys: throttling.maxKeys)
        hashes = ConcurrencyGate(limit: throttling.concurrentHashes, wait: throttling.hashWait)
    }

    /// The account when `password` is right and the account active.
    /// - Parameter address: the client's address (as a trusted proxy reports it).
    /// - Throws: `Failure`, or a database error.
    public func login(username: String, password: String, address: String) throws -> UserAccount {
        guard username.utf8.count <= Self.maxUsernameLength else { throw Failure.invalidCredentials }
        let userKey = username.lowercased()
        let pairKey = userKey + "\u{0}" + address
        let waits = [perUserAndAddress.retryAfter(pairKey), perAddress.retryAfter(address), perUsername.retryAfter(userKey)]
        if let wait = waits.compactMap({ $0 }).max() { throw Failure.throttled(retryAfter: wait) }
        guard let verified = try hashes.run({ try verify(username: username, password: password) }) else {
            throw Failure.busy(retryAfter: 1)
        }
        guard let found = verified else {
            for (throttle, key) in [(perUserAndAddress, pairKey), (perAddress, address), (perUsername, userKey)] {
                throttle.recordFailure(key)
            }
            throw Failure.invalidCredentials
        }
        perUserAndAddress.reset(pairKey)
        // Only a caller who knows the password learns that the account is suspended.
        guard !found.suspended else { throw Failure.suspended }
        return found
    }

    /// The account when the password matches; an unknown name costs the same hash.
    private func verify(username: String, password: String) throws -> UserAccount? {
        guard let found = try accounts.credentials(username: username) else {
            hasher.burnVerification(password)
            return nil
        }
        return hasher.verify(password, against: found.passwordHash) ? found.user : nil
    }
}
