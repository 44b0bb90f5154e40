/// Reads a record's stored `fieldMeta` text, `{"field": {"seq": 7, "opId": "…", "deviceId": "…"}, …}`,
/// as ranges of the text: each field's name, number and ids stay the JSON tokens they are, so a
/// page can be rewritten without building a value per field (``CompactFieldMeta``).
///
/// Only the shape the server writes is read: a number must be an integer of at most 18
/// digits, the ids strings or null, and `seq` present once. Anything else (unknown members,
/// escaped member names, other numbers) answers nil, and the caller parses the text in full.
enum StoredFieldMeta {
    typealias Text = UnsafeBufferPointer<UInt8>

    struct Field {
        /// The field's name as a JSON string token, quotes included.
        var name: Range<Int>
        /// The digits of `seq`.
        var seq: Range<Int>
        /// String tokens, quotes included; nil when absent or null.
        var opId: Range<Int>?
        var deviceId: Range<Int>?
    }

    /// Replaces the contents of `fields` (an array reused from record to record) with the fields
    /// of `text` in their stored order; false when it is not of the expected shape.
    static func read(_ text: Text, into fields: inout [Field]) -> Bool {
        fields.removeAll(keepingCapacity: true)
        var reader = Reader(text: text)
        guard reader.consume(UInt8(ascii: "{")) else { return false }
        if reader.consume(UInt8(ascii: "}")) { return reader.atEnd }
        repeat {
            guard let name = reader.string(), reader.consume(UInt8(ascii: ":")), let field = reader.meta(named: name) else { return false }
            fields.append(field)
        } while reader.consume(UInt8(ascii: ","))
        return reader.consume(UInt8(ascii: "}")) && reader.atEnd
    }

    private struct Reader {
        /// The member names of a field's metadata, as string tokens.
        static let seqToken = Array(#""seq""#.utf8)
        static let opIdToken = Array(#""opId""#.utf8)
        static let deviceIdToken = Array(#""deviceId""#.utf8)
        static let nullToken = Array("null".utf8)

        let text: Text
        var position = 0

        init(text: Text) {
            self.text = text
        }

        var atEnd: Bool {
            mutating get {
                skipSpace()
                return position == text.count
            }
        }

        mutating func skipSpace() {
            while position < text.count {
                switch text[position] {
                case 0x20, 0x09, 0x0A, 0x0D: position += 1
                default: return
                }
            }
        }

        /// Consumes `byte` after any white space; false (nothing consumed but space) otherwise.
        mutating func consume(_ byte: UInt8) -> Bool {
            skipSpace()
            guard position < text.count, text[position] == byte else { return false }
            position += 1
            return true
        }

        /// A string token, quotes included.
        mutating func string() -> Range<Int>? {
            guard consume(UInt8(ascii: "\"")) else { return nil }
            let start = position - 1
            while position < text.count {
                switch text[position] {
                case UInt8(ascii: "\""):
                    position += 1
                    return start..<position
                case UInt8(ascii: "\\"): position += 2
                case 0..<0x20: return nil
                default: position += 1
                }
            }
            return nil
        }

        /// The digits of a non-negative integer of at most 18 digits (it fits an Int64).
        mutating func integer() -> Range<Int>? {
            skipSpace()
            let start = position
            while position < text.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(text[position]) { position += 1 }
            let digits = position - start
            guard (1...18).contains(digits), digits == 1 || text[start] != UInt8(ascii: "0") else { return nil }
            if position < text.count {
                switch text[position] {
                case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): return nil
                default: break
                }
            }
            return start..<position
        }

        /// A string token, or nil for `null` (`.some(nil)`); nil when neither.
        mutating func stringOrNull() -> Range<Int>?? {
            skipSpace()
            if position < text.count, text[position] == UInt8(ascii: "n") {
                guard text[position...].starts(with: Self.nullToken) else { return nil }
                position += Self.nullToken.count
                return .some(nil)
            }
            return string().map { .some($0) }
        }

        /// One field's `{"seq": …, "opId": …, "deviceId": …}`.
        mutating func meta(named name: Range<Int>) -> Field? {
            guard consume(UInt8(ascii: "{")) else { return nil }
            var seq: Range<Int>?
            var opId: Range<Int>??
            var deviceId: Range<Int>??
            repeat {
                guard let key = string(), consume(UInt8(ascii: ":")) else { return nil }
                let member = text[key]
                if seq == nil, member.elementsEqual(Self.seqToken) {
                    guard let digits = integer() else { return nil }
                    seq = digits
                } else if opId == nil, member.elementsEqual(Self.opIdToken) {
                    guard let value = stringOrNull() else { return nil }
                    opId = value
                } else if deviceId == nil, member.elementsEqual(Self.deviceIdToken) {
                    guard let value = stringOrNull() else { return nil }
                    deviceId = value
                } else {
                    return nil
                }
            } while consume(UInt8(ascii: ","))
            guard consume(UInt8(ascii: "}")), let seq else { return nil }
            return Field(name: name, seq: seq, opId: opId ?? nil, deviceId: deviceId ?? nil)
        }
    }
}
