public import Foundation

extension JSONValue {
    /// Parses JSON text without `JSONDecoder`, or answers nil for text it does not vouch for.
    ///
    /// The hot paths (push bodies, stored payloads) read JSON through here: on Linux this is
    /// many times cheaper than decoding `JSONValue` with `JSONDecoder`. Whenever it answers, the
    /// value is the one `JSONDecoder` would give: integers that fit `Int64` and decimals with
    /// only zeros after the point are ``int(_:)``, other numbers ``double(_:)``. It answers nil
    /// for invalid JSON and for what it leaves to `JSONDecoder` (exponents, duplicate keys,
    /// NUL characters, nesting deeper than 64), so callers fall back to the decoder, which
    /// decides and reports errors.
    ///
    /// ```swift
    /// let value = JSONValue(parsing: #"{"a": [1, 2.5, "x"]}"#)  // .object(["a": [1, 2.5, "x"]])
    /// ```
    public init?(parsing text: String) {
        var text = text
        guard let value = text.withUTF8({ JSONParser.parse($0) }) else { return nil }
        self = value
    }

    /// ``init(parsing:)-(String)`` for UTF-8 bytes.
    public init?(parsing data: Data) {
        guard let value = data.withUnsafeBytes({ JSONParser.parse($0.bindMemory(to: UInt8.self)) }) else { return nil }
        self = value
    }
}

/// A recursive-descent JSON reader over UTF-8 bytes; every method answers nil on anything it
/// does not accept, which ends the parse.
struct JSONParser {
    static let maxDepth = 64

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private var depth = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> JSONValue? {
        whole(bytes) { $0.value() }
    }

    /// What `read` makes of the text, which must be nothing else (space aside).
    static func whole<T>(_ bytes: UnsafeBufferPointer<UInt8>, _ read: (inout JSONParser) -> T?) -> T? {
        var parser = JSONParser(bytes)
        parser.skipSpace()
        guard let value = read(&parser) else { return nil }
        parser.skipSpace()
        guard parser.index == bytes.count else { return nil }
        return value
    }

    var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipSpace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    mutating func value() -> JSONValue? {
        switch current {
        case UInt8(ascii: "{"): return nested { $0.members().map(JSONValue.object) }
        case UInt8(ascii: "["): return nested { $0.elements().map(JSONValue.array) }
        case UInt8(ascii: "\""): return string().map(JSONValue.string)
        case UInt8(ascii: "t"): return literal("true", .bool(true))
        case UInt8(ascii: "f"): return literal("false", .bool(false))
        case UInt8(ascii: "n"): return literal("null", .null)
        default: return number()
        }
    }

    /// What `body` reads inside the object or array opening here, one level deeper (at most
    /// ``maxDepth``), with the parser past the bracket and its space.
    mutating func nested<T>(_ body: (inout JSONParser) -> T?) -> T? {
        guard depth < Self.maxDepth else { return nil }
        depth += 1
        defer { depth -= 1 }
        index += 1
        skipSpace()
        return body(&self)
    }

    private mutating func literal(_ word: StaticString, _ value: JSONValue) -> JSONValue? {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count, memcmp(bytes.baseAddress! + index, word.utf8Start, count) == 0 else { return nil }
        index += count
        return value
    }

    /// The members after `{`, through `}`.
    private mutating func members() -> [String: JSONValue]? {
        var members: [String: JSONValue] = [:]
        let complete = eachMember { parser, key in
            // A repeated key is left to JSONDecoder (which keeps the first).
            guard let value = parser.value(), members.updateValue(value, forKey: key) == nil else { return false }
            return true
        }
        return complete ? members : nil
    }

    /// Walks the members after `{`, through `}`: `member` gets each key with the parser at the
    /// member's value, which it must read. False for malformed text or when `member` answers
    /// false. Repeated keys are not looked for: that is `member`'s to do.
    mutating func eachMember(_ member: (inout JSONParser, String) -> Bool) -> Bool {
        if current == UInt8(ascii: "}") {
            index += 1
            return true
        }
        while true {
            guard current == UInt8(ascii: "\""), let key = string() else { return false }
            skipSpace()
            guard current == UInt8(ascii: ":") else { return false }
            index += 1
            skipSpace()
            guard member(&self, key) else { return false }
            guard let end = separator(closing: UInt8(ascii: "}")) else { return false }
            if end { return true }
        }
    }

    /// The elements after `[`, through `]`.
    private mutating func elements() -> [JSONValue]? {
        elements { $0.value() }
    }

    /// The elements after `[`, through `]`, each read by `element`.
    mutating func elements<T>(_ element: (inout JSONParser) -> T?) -> [T]? {
        var elements: [T] = []
        if current == UInt8(ascii: "]") {
            index += 1
            return elements
        }
        while true {
            guard let value = element(&self) else { return nil }
            elements.append(value)
            guard let end = separator(closing: UInt8(ascii: "]")) else { return nil }
            if end { return elements }
        }
    }

    /// After a member or element: true at the closing bracket, false after a comma (and the
    /// space before the next item), nil otherwise.
    private mutating func separator(closing: UInt8) -> Bool? {
        skipSpace()
        switch current {
        case closing:
            index += 1
            return true
        case UInt8(ascii: ","):
            index += 1
            skipSpace()
            return false
        default:
            return nil
        }
    }
}

// MARK: - Scalars

extension JSONParser {
    /// A string literal; the common case without escapes is one validated copy.
    fileprivate mutating func string() -> String? {
        index += 1
        let start = index
        var ascii = true
        while let byte = current, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
            guard byte >= 0x20 else { return nil }
            ascii = ascii && byte < 0x80
            index += 1
        }
        guard current == UInt8(ascii: "\"") else { return escapedString(from: start) }
        index += 1
        let text = UnsafeBufferPointer(rebasing: bytes[start..<index - 1])
        // ASCII is valid UTF-8 as it stands: the non-generic decoding initializer is far cheaper
        // than the validating one, which looks up generic metadata on every call.
        return ascii ? String(decoding: text, as: UTF8.self) : String(validating: text, as: UTF8.self)
    }

    private mutating func escapedString(from start: Int) -> String? {
        var decoded = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while let byte = current {
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(validating: decoded, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard escape(into: &decoded) else { return nil }
            case ..<0x20:
                return nil
            default:
                decoded.append(byte)
            }
        }
        return nil
    }

    /// One escape after a backslash; false when malformed or a NUL or lone surrogate.
    private mutating func escape(into decoded: inout [UInt8]) -> Bool {
        guard let letter = current else { return false }
        index += 1
        switch letter {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded.append(letter)
        case UInt8(ascii: "b"): decoded.append(0x08)
        case UInt8(ascii: "f"): decoded.append(0x0C)
        case UInt8(ascii: "n"): decoded.append(0x0A)
        case UInt8(ascii: "r"): decoded.append(0x0D)
        case UInt8(ascii: "t"): decoded.append(0x09)
        case UInt8(ascii: "u"):
            guard let scalar = unicodeEscape(), scalar != "\0" else { return false }
            decoded.append(contentsOf: String(scalar).utf8)
        default: return false
        }
        return true
    }

    /// The scalar of `XXXX` after `\u`, joining a surrogate pair written as two escapes.
    private mutating func unicodeEscape() -> Unicode.Scalar? {
        guard let unit = hexUnit() else { return nil }
        guard (0xD800..<0xDC00).contains(unit) else { return Unicode.Scalar(unit) }
        guard current == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else { return nil }
        index += 2
        guard let low = hexUnit(), (0xDC00..<0xE000).contains(low) else { return nil }
        return Unicode.Scalar(0x10000 + (UInt32(unit - 0xD800) << 10) + UInt32(low - 0xDC00))
    }

    private mutating func hexUnit() -> UInt16? {
        guard index + 4 <= bytes.count else { return nil }
        var unit: UInt16 = 0
        for byte in bytes[index..<index + 4] {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            unit = unit << 4 | UInt16(digit)
        }
        index += 4
        return unit
    }

    /// A number: `Int64` when integral (`5` and `5.0` alike), else a double; nil for exponents,
    /// integers beyond `Int64` and integral decimals beyond 2^53, which are left to JSONDecoder.
    fileprivate mutating func number() -> JSONValue? {
        let start = index
        if current == UInt8(ascii: "-") { index += 1 }
        guard let integer = digits(), integer.count == 1 || bytes[integer.lowerBound] != UInt8(ascii: "0") else { return nil }
        var fraction: Range<Int>?
        if current == UInt8(ascii: ".") {
            index += 1
            guard let digits = digits() else { return nil }
            fraction = digits
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") { return nil }
        let negative = bytes[start] == UInt8(ascii: "-")
        guard let fraction, bytes[fraction].contains(where: { $0 != UInt8(ascii: "0") }) else {
            guard let value = Self.integer(bytes[integer], negative: negative), fraction == nil || value.magnitude < 1 << 53 else {
                return nil
            }
            return .int(value)
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        return Double(text).map(JSONValue.double)
    }

    /// The run of ASCII digits at the current position; nil when there is none.
    private mutating func digits() -> Range<Int>? {
        let start = index
        while let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { index += 1 }
        return index > start ? start..<index : nil
    }

    private static func integer(_ digits: Slice<UnsafeBufferPointer<UInt8>>, negative: Bool) -> Int64? {
        var value: Int64 = 0
        for byte in digits {
            let digit = Int64(byte - UInt8(ascii: "0"))
            let (shifted, overflowed) = value.multipliedReportingOverflow(by: 10)
            let (next, overflowedAgain) = negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
            guard !overflowed, !overflowedAgain else { return nil }
            value = next
        }
        return value
    }
}
