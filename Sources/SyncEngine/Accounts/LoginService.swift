public import Cryptography
import Foundation
public import Support

/// Password login shared by the device token endpoint and the back-office: one
/// throttle per user name and per client address, the same answer for an unknown
/// user and a wrong password, and the same time spent on both.
public final class LoginService: Sendable {
    public enum Failure: Error, Equatable {
        case invalidCredentials
        case suspended
        /// Too many recent failures; retry after this many seconds.
        case throttled(retryAfter: Int)
    }

    private let accounts: any AccountStore
    private let hasher: PasswordHasher
    private let perUsername: FailureThrottle
    private let perAddress: FailureThrottle

    /// - Parameters:
    ///   - perUsername: defaults to 5 failures per 15 minutes.
    ///   - perAddress: defaults to 30 failures per 15 minutes.
    public init(
        accounts: any AccountStore, hasher: PasswordHasher,
        perUsername: FailureThrottle = FailureThrottle(rule: .init(maxFailures: 5, window: 900)),
        perAddress: FailureThrottle = FailureThrottle(rule: .init(maxFailures: 30, window: 900))
    ) {
        self.accounts = accounts
        self.hasher = hasher
        self.perUsername = perUsername
        self.perAddress = perAddress
    }

    /// The account when `password` is right and the account active.
    /// - Throws: `Failure`, or a database error.
    public func login(username: String, password: String, address: String) throws -> UserAccount {
        let userKey = username.lowercased()
        if let wait = [perUsername.retryAfter(userKey), perAddress.retryAfter(address)].compactMap({ $0 }).max() {
            throw Failure.throttled(retryAfter: wait)
        }
        guard let found = try accounts.credentials(username: username) else {
            hasher.burnVerification(password)
            recordFailure(userKey, address)
            throw Failure.invalidCredentials
        }
        guard hasher.verify(password, against: found.passwordHash) else {
            recordFailure(userKey, address)
            throw Failure.invalidCredentials
        }
        perUsername.reset(userKey)
        // Only a caller who knows the password learns that the account is suspended.
        guard !found.user.suspended else { throw Failure.suspended }
        return found.user
    }

    private func recordFailure(_ userKey: String, _ address: String) {
        perUsername.recordFailure(userKey)
        perAddress.recordFailure(address)
    }
}
