import Foundation

#if canImport(CryptoKit)
import CryptoKit
#else
import Cryptography
#endif

/// SHA-256 through the platform's library: CryptoKit on Apple platforms, OpenSSL (the
/// `Cryptography` target) elsewhere. Both hash incrementally; digests are lower-case hex.
struct SHA256Hasher: ~Copyable {
    #if canImport(CryptoKit)
    private var hasher = CryptoKit.SHA256()
    #else
    private var hasher: Cryptography.SHA256
    #endif

    init() throws {
        #if !canImport(CryptoKit)
        hasher = try Cryptography.SHA256()
        #endif
    }

    mutating func update(_ data: Data) throws {
        #if canImport(CryptoKit)
        hasher.update(data: data)
        #else
        try hasher.update(data)
        #endif
    }

    consuming func finalizeHex() throws -> String {
        #if canImport(CryptoKit)
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
        #else
        return try hasher.finalize().hexString
        #endif
    }

    /// The digest of `data` in one call.
    static func hex(_ data: Data) throws -> String {
        var digest = try SHA256Hasher()
        try digest.update(data)
        return try digest.finalizeHex()
    }
}
