import Cryptography
public import Foundation

/// Tokens that prove a form was served by this server to this browser.
///
/// A token is the HMAC of what it is bound to (a session id, or the nonce of a sign-in
/// page) under a server secret, so nothing extra is stored and a token from another
/// session, or forged without the secret, does not verify. Comparison is constant-time.
///
/// ```swift
/// let csrf = CSRFProtection(key: secret)
/// let token = csrf.token(for: sessionId, purpose: .session)  // put in every form
/// csrf.verify(form["_csrf"], for: sessionId, purpose: .session)
/// ```
public struct CSRFProtection: Sendable {
    /// What the token is bound to; a token of one purpose never verifies for another.
    public enum Purpose: String, Sendable {
        /// Forms of a signed-in session.
        case session
        /// The sign-in form, bound to a nonce cookie set with the page.
        case login
    }

    /// The form field that carries the token.
    public static let fieldName = "_csrf"

    private let key: Data

    /// - Parameter key: The server secret (at least 32 random bytes).
    public init(key: Data) {
        self.key = key
    }

    /// The token for forms bound to `binding`.
    public func token(for binding: String, purpose: Purpose) -> String {
        HMAC.sha256(key: key, message: Data("\(purpose.rawValue):\(binding)".utf8)).base64URLEncodedString()
    }

    /// Whether `presented` is the token for `binding`; false when it is missing.
    public func verify(_ presented: String?, for binding: String, purpose: Purpose) -> Bool {
        guard let presented, let mac = Data(base64URLEncoded: presented) else { return false }
        return HMAC.verify(mac, key: key, message: Data("\(purpose.rawValue):\(binding)".utf8))
    }
}
