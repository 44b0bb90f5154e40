import Foundation
import SyncEngine

/// The kinds of value a sort key holds, each checked before it is bound into SQL so a
/// damaged cursor is refused instead of failing inside PostgreSQL.
enum KeyPart {
    /// `timestamptz` written by `KeyPart.timestampText`: `YYYY-MM-DDTHH:MI:SS.ffffffZ`
    /// (exact to the microsecond, unlike a `Date`), or `infinity` / `-infinity`.
    case timestamp
    case integer
    case text
    /// `bytea` as `encode(…, 'hex')` writes it: lowercase hex digits, two per byte (none for
    /// no bytes), bound back through `decode(…, 'hex')`.
    case hex

    /// SQL that writes the timestamp `column` the way `.timestamp` expects it back.
    static func timestampText(_ column: String) -> String {
        #"to_char(\#(column) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')"#
    }

    func accepts(_ value: String) -> Bool {
        switch self {
        case .timestamp: value == "infinity" || value == "-infinity" || Self.isTimestamp(value)
        case .integer: Int64(value) != nil
        // PostgreSQL's text cannot hold NUL, and libpq would cut the value there.
        case .text: !value.contains("\u{0}")
        case .hex: value.utf8.count % 2 == 0 && value.utf8.allSatisfy { Self.hexDigits.contains($0) }
        }
    }

    private static let hexDigits = Set("0123456789abcdef".utf8)

    /// Whether `text` is a real UTC instant in the exact shape `timestampText` writes.
    private static func isTimestamp(_ text: String) -> Bool {
        let characters = Array(text.utf8)
        let shape = Array("dddd-dd-ddTdd:dd:dd.ddddddZ".utf8)
        guard characters.count == shape.count else { return false }
        for (character, expected) in zip(characters, shape) {
            let matches = expected == UInt8(ascii: "d") ? (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(character) : character == expected
            guard matches else { return false }
        }
        func number(_ start: Int, _ length: Int) -> Int { Int(String(decoding: characters[start..<start + length], as: UTF8.self)) ?? -1 }
        let (year, month, day) = (number(0, 4), number(5, 2), number(8, 2))
        guard year >= 1, (1...12).contains(month), number(11, 2) < 24, number(14, 2) < 60, number(17, 2) < 60 else { return false }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        return (1...days).contains(day)
    }
}

extension PageCursor {
    /// The cursor's values, after checking there is one of the right kind per key part.
    /// - Throws: `PageCursor.Invalid` otherwise.
    func checked(_ parts: [KeyPart]) throws -> [String] {
        guard values.count == parts.count, zip(parts, values).allSatisfy({ $0.accepts($1) }) else { throw Invalid() }
        return values
    }
}
