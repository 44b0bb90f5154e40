/// One-dimensional arrays travel as PostgreSQL array literals: `{"a","b \"c\"",NULL}`.
///
/// Every element is double-quoted with `\` and `"` escaped, which is valid input for any element
/// type, so `[String]`, `[Int]`, `[UUID]` or `[Data]` binds work with `= ANY($1)` and
/// `unnest($1::text[])`. Multi-dimensional arrays are not supported.
extension Array: PostgresEncodable where Element: PostgresEncodable {
    @inlinable
    public var postgresText: String? {
        // Built as UTF-8 bytes, copying the runs between escapes in bulk: batch inserts pass
        // kilobytes of JSON (a quote every few bytes) through here per push.
        var bytes: [UInt8] = [UInt8(ascii: "{")]
        for position in indices {
            if position > 0 { bytes.append(UInt8(ascii: ",")) }
            let element = self[position]
            guard var value = element.postgresText else {
                bytes.append(contentsOf: "NULL".utf8)
                continue
            }
            bytes.append(UInt8(ascii: "\""))
            value.withUTF8 { ArrayLiteral.appendEscaped($0, to: &bytes) }
            bytes.append(UInt8(ascii: "\""))
        }
        bytes.append(UInt8(ascii: "}"))
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Pieces of array literals, for binds assembled from parts encoded at different times.
public enum ArrayLiteral {
    /// Appends `text` as the inside of a double-quoted element: a backslash before each `\` and `"`.
    @inlinable
    public static func appendEscaped(_ text: UnsafeBufferPointer<UInt8>, to bytes: inout [UInt8]) {
        var runStart = 0
        for index in text.indices where text[index] == UInt8(ascii: "\\") || text[index] == UInt8(ascii: "\"") {
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: text[runStart..<index]))
            bytes.append(UInt8(ascii: "\\"))
            runStart = index
        }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: text[runStart...]))
    }
}

extension Array: PostgresDecodable where Element: PostgresDecodable {
    public init(postgresText: String) throws {
        var parser = ArrayLiteralParser([UInt8](postgresText.utf8))
        guard let items = parser.parse() else { throw PostgresError.decoding(postgresText, as: Self.self) }
        self = try items.map { item in
            guard let item else {
                guard let null = Element.postgresNull else {
                    throw PostgresError.decoding("NULL element in \(postgresText)", as: Element.self)
                }
                return null
            }
            return try Element(postgresText: item)
        }
    }
}

/// Splits a one-dimensional array literal into element texts (nil for an unquoted NULL).
private struct ArrayLiteralParser {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func parse() -> [String?]? {
        if bytes.first == UInt8(ascii: "[") {
            // Explicit bounds, e.g. `[0:1]={a,b}`, are printed for arrays not starting at 1.
            guard let equals = bytes.firstIndex(of: UInt8(ascii: "=")) else { return nil }
            index = equals + 1
        }
        guard next() == UInt8(ascii: "{") else { return nil }
        var items: [String?] = []
        if peek() == UInt8(ascii: "}") {
            index += 1
            return index == bytes.count ? items : nil
        }
        while true {
            guard let item = element() else { return nil }
            items.append(item)
            switch next() {
            case UInt8(ascii: ","): continue
            case UInt8(ascii: "}"): return index == bytes.count ? items : nil
            default: return nil
            }
        }
    }

    /// One element: `.some(nil)` for NULL, nil when malformed.
    private mutating func element() -> String?? {
        skipSpaces()
        guard let first = peek(), first != UInt8(ascii: "{") else { return nil }
        if first == UInt8(ascii: "\"") {
            index += 1
            guard let text = characters(until: [UInt8(ascii: "\"")]) else { return nil }
            index += 1
            skipSpaces()
            return .some(.some(text))
        }
        guard var text = characters(until: [UInt8(ascii: ","), UInt8(ascii: "}")]) else { return nil }
        text = text.trimmingSuffix { $0 == " " }
        return text.uppercased() == "NULL" ? .some(.none) : .some(.some(text))
    }

    /// Reads up to (not including) a terminator, resolving backslash escapes.
    private mutating func characters(until terminators: Set<UInt8>) -> String? {
        var collected: [UInt8] = []
        while let byte = peek(), !terminators.contains(byte) {
            index += 1
            if byte == UInt8(ascii: "\\") {
                guard let escaped = next() else { return nil }
                collected.append(escaped)
            } else {
                collected.append(byte)
            }
        }
        return peek() == nil ? nil : String(decoding: collected, as: UTF8.self)
    }

    private mutating func skipSpaces() {
        while peek() == UInt8(ascii: " ") { index += 1 }
    }

    private func peek() -> UInt8? {
        index < bytes.count ? bytes[index] : nil
    }

    private mutating func next() -> UInt8? {
        defer { index += 1 }
        return peek()
    }
}
