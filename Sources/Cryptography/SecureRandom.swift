import COpenSSL
public import Foundation

/// Cryptographically secure random bytes from OpenSSL's CSPRNG.
public enum SecureRandom {
    /// `count` random bytes. The CSPRNG failing means the process cannot run safely,
    /// so this traps rather than returning weak bytes.
    public static func bytes(_ count: Int) -> Data {
        var buffer = [UInt8](repeating: 0, count: count)
        guard count == 0 || RAND_bytes(&buffer, Int32(count)) == 1 else {
            fatalError("CSPRNG failure: \(CryptoError(operation: "RAND_bytes"))")
        }
        return Data(buffer)
    }

    /// A URL-safe base64 token of `byteCount` random bytes (256 bits by default).
    public static func token(byteCount: Int = 32) -> String {
        bytes(byteCount).base64URLEncodedString()
    }
}

extension Data {
    /// Base64 with the URL-safe alphabet and no padding.
    public func base64URLEncodedString() -> String {
        base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Decodes URL-safe base64 with or without padding.
    public init?(base64URLEncoded text: String) {
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
        self.init(base64Encoded: standard)
    }
}
