import COpenSSL
public import Foundation

/// SHA-256 digests through OpenSSL's EVP interface.
///
/// ```swift
/// let hex = SHA256.hash(Data("abc".utf8)).hexString
/// var hasher = try SHA256()
/// try hasher.update(chunk)
/// let digest = try hasher.finalize()
/// ```
public struct SHA256: ~Copyable {
    public static let byteCount = 32
    private let context: OpaquePointer

    /// Starts an incremental digest, for data that arrives in pieces (uploads).
    public init() throws {
        guard let context = EVP_MD_CTX_new() else { throw CryptoError(operation: "EVP_MD_CTX_new") }
        guard EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else {
            EVP_MD_CTX_free(context)
            throw CryptoError(operation: "EVP_DigestInit_ex")
        }
        self.context = context
    }

    deinit { EVP_MD_CTX_free(context) }

    public mutating func update(_ bytes: UnsafeRawBufferPointer) throws {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        try CryptoError.check(EVP_DigestUpdate(context, base, bytes.count), "EVP_DigestUpdate")
    }

    public mutating func update(_ data: some DataProtocol) throws {
        for region in data.regions {
            try region.withUnsafeBytes { try update($0) }
        }
    }

    /// Ends the digest and returns its 32 bytes.
    public consuming func finalize() throws -> Data {
        var digest = [UInt8](repeating: 0, count: Self.byteCount)
        var length: UInt32 = 0
        try CryptoError.check(EVP_DigestFinal_ex(context, &digest, &length), "EVP_DigestFinal_ex")
        return Data(digest.prefix(Int(length)))
    }

    /// The digest of `data` in one call. SHA-256 through the default provider cannot fail
    /// short of memory exhaustion, so this traps instead of throwing.
    public static func hash(_ data: some DataProtocol) -> Data {
        do {
            var hasher = try SHA256()
            try hasher.update(data)
            return try hasher.finalize()
        } catch {
            fatalError("SHA-256 unavailable: \(error)")
        }
    }
}

extension Data {
    /// Lowercase hexadecimal, the form digests take on the wire.
    public var hexString: String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(count * 2)
        for byte in self {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Parses lowercase or uppercase hexadecimal; nil for odd length or other characters.
    public init?(hexString: String) {
        let utf8 = Array(hexString.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var bytes = [UInt8]()
        bytes.reserveCapacity(utf8.count / 2)
        var index = 0
        while index < utf8.count {
            guard let high = nibble(utf8[index]), let low = nibble(utf8[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        self.init(bytes)
    }
}
