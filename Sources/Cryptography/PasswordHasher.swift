import COpenSSL
import Foundation

/// Password hashing with PBKDF2-HMAC-SHA256.
///
/// Hashes are self-describing strings, `pbkdf2-sha256$<iterations>$<salt>$<hash>` (base64),
/// so the work factor can be raised later without invalidating stored hashes.
/// The default follows OWASP's Password Storage Cheat Sheet: 600,000 iterations.
public struct PasswordHasher: Sendable {
    public static let owaspIterations = 600_000
    private static let scheme = "pbkdf2-sha256"
    private static let saltBytes = 16
    private static let hashBytes = 32

    public let iterations: Int

    public init(iterations: Int = PasswordHasher.owaspIterations) {
        precondition(iterations > 0, "iterations must be positive")
        self.iterations = iterations
    }

    /// A new salted hash of `password`.
    public func hash(_ password: String) throws -> String {
        let salt = SecureRandom.bytes(Self.saltBytes)
        let derived = try Self.derive(password, salt: salt, iterations: iterations)
        return [Self.scheme, String(iterations), salt.base64EncodedString(), derived.base64EncodedString()]
            .joined(separator: "$")
    }

    /// Whether `password` matches `encoded`. A malformed stored hash never matches.
    public func verify(_ password: String, against encoded: String) -> Bool {
        let parts = encoded.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == Self.scheme,
            let rounds = Int(parts[1]), rounds > 0,
            let salt = Data(base64Encoded: String(parts[2])),
            let expected = Data(base64Encoded: String(parts[3])),
            let derived = try? Self.derive(password, salt: salt, iterations: rounds, length: expected.count)
        else { return false }
        return constantTimeEquals(derived, expected)
    }

    /// Spends the same work as a real verification, so an unknown user name takes
    /// as long to refuse as a wrong password.
    public func burnVerification(_ password: String) {
        _ = try? Self.derive(password, salt: Data(count: Self.saltBytes), iterations: iterations)
    }

    private static func derive(_ password: String, salt: Data, iterations: Int, length: Int = hashBytes) throws -> Data {
        var output = [UInt8](repeating: 0, count: length)
        let utf8 = Array(password.utf8)
        let status = salt.withUnsafeBytes { saltBytes in
            utf8.withUnsafeBufferPointer { passwordBytes in
                passwordBytes.withMemoryRebound(to: CChar.self) { chars in
                    PKCS5_PBKDF2_HMAC(
                        chars.baseAddress, Int32(chars.count),
                        saltBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(saltBytes.count),
                        Int32(iterations), EVP_sha256(), Int32(length), &output)
                }
            }
        }
        try CryptoError.check(status, "PKCS5_PBKDF2_HMAC")
        return Data(output)
    }
}
