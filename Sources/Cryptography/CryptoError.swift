import COpenSSL

/// A failure reported by OpenSSL, read from its thread-local error queue.
public struct CryptoError: Error, CustomStringConvertible {
    /// The OpenSSL call that failed.
    public let operation: String
    /// OpenSSL's reason text, when it left one.
    public let reason: String

    /// Captures and clears the calling thread's OpenSSL error queue.
    init(operation: String) {
        self.operation = operation
        let code = ERR_get_error()
        if code == 0 {
            reason = "no detail"
        } else {
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            reason = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        ERR_clear_error()
    }

    public var description: String { "\(operation) failed: \(reason)" }

    /// Funnels an OpenSSL status (1 = success) into a thrown error.
    static func check(_ status: Int32, _ operation: String) throws {
        guard status == 1 else { throw CryptoError(operation: operation) }
    }
}
