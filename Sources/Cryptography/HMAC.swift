import COpenSSL
public import Foundation

/// HMAC-SHA256 message authentication (signed cursors, CSRF tokens).
public enum HMAC {
    /// The 32-byte HMAC-SHA256 of `message` under `key`.
    public static func sha256(key: Data, message: Data) -> Data {
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let result = key.withUnsafeBytes { keyBytes in
            message.withUnsafeBytes { messageBytes in
                COpenSSL.HMAC(
                    EVP_sha256(), keyBytes.baseAddress, Int32(keyBytes.count),
                    messageBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), messageBytes.count,
                    &output, &length)
            }
        }
        // > HMAC() returns a pointer to the authentication code or NULL if an error occurred.
        precondition(result != nil, "HMAC-SHA256 unavailable")
        return Data(output.prefix(Int(length)))
    }

    /// Whether `mac` is the HMAC of `message`, compared in constant time.
    public static func verify(_ mac: Data, key: Data, message: Data) -> Bool {
        constantTimeEquals(mac, sha256(key: key, message: message))
    }
}

/// Compares two byte strings without leaking, through timing, where they first differ.
public func constantTimeEquals(_ lhs: Data, _ rhs: Data) -> Bool {
    guard lhs.count == rhs.count else { return false }
    return lhs.withUnsafeBytes { a in
        rhs.withUnsafeBytes { b in
            lhs.isEmpty || CRYPTO_memcmp(a.baseAddress, b.baseAddress, lhs.count) == 0
        }
    }
}
