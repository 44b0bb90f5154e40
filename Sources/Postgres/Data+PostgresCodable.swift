public import Foundation

/// Bytes travel as `bytea` hex text (`\x0a1b…`), the server's default output format, which every
/// connection pins with `bytea_output=hex`.
extension Data: PostgresEncodable, PostgresDecodable {
    public var postgresText: String? {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = [UInt8(ascii: "\\"), UInt8(ascii: "x")]
        text.reserveCapacity(2 + count * 2)
        for byte in self {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    public init(postgresText: String) throws {
        let utf8 = Array(postgresText.utf8)
        guard utf8.count % 2 == 0, utf8.starts(with: [UInt8(ascii: "\\"), UInt8(ascii: "x")]) else {
            throw PostgresError.decoding(postgresText, as: Data.self)
        }
        var bytes = Data(capacity: utf8.count / 2 - 1)
        var index = 2
        while index < utf8.count {
            guard let high = hexValue(utf8[index]), let low = hexValue(utf8[index + 1]) else {
                throw PostgresError.decoding(postgresText, as: Data.self)
            }
            bytes.append(high << 4 | low)
            index += 2
        }
        self = bytes
    }
}
