/// Splits template source into text and tag tokens, following `{{=… …=}}`
/// delimiter changes as it goes.
///
/// Text is cut after every newline, so each text token lies on one line; the
/// whitespace passes rely on that.
struct Lexer {
    private let source: [UInt8]
    private let file: String
    private var openDelimiter = Array("{{".utf8)
    private var closeDelimiter = Array("}}".utf8)
    private var tokens: [Token] = []

    /// Tokenizes a whole template.
    ///
    /// - Throws: `TemplateError` for an unclosed tag, an empty or malformed
    ///   name, or a bad delimiter change.
    static func tokenize(_ source: [UInt8], file: String) throws(TemplateError) -> [Token] {
        var lexer = Lexer(source: source, file: file)
        var position = 0
        while position < source.count {
            guard let tagStart = lexer.find(lexer.openDelimiter, from: position) else {
                lexer.appendText(position..<source.count)
                break
            }
            lexer.appendText(position..<tagStart)
            position = try lexer.readTag(at: tagStart)
        }
        return lexer.tokens
    }

    private init(source: [UInt8], file: String) {
        self.source = source
        self.file = file
    }

    private mutating func appendText(_ range: Range<Int>) {
        var start = range.lowerBound
        while start < range.upperBound {
            let end = source[start..<range.upperBound].firstIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? range.upperBound
            tokens.append(Token(kind: .text, range: start..<end))
            start = end
        }
    }

    /// Reads the tag starting at `start` and returns the offset just past it.
    private mutating func readTag(at start: Int) throws(TemplateError) -> Int {
        let afterOpen = start + openDelimiter.count
        guard afterOpen < source.count else { throw error(at: start, "unclosed tag") }
        let (kind, contentStart, terminator) = classify(source[afterOpen], at: afterOpen)
        guard let contentEnd = find(terminator, from: contentStart) else { throw error(at: start, "unclosed tag") }
        let content = trimmed(contentStart..<contentEnd)
        let end = contentEnd + terminator.count
        var token = Token(kind: kind, range: start..<end)
        switch kind {
        case .comment:
            break
        case .setDelimiters:
            try changeDelimiters(content, tagStart: start)
        default:
            token.name = try validName(content, for: kind, tagStart: start)
        }
        tokens.append(token)
        return end
    }

    /// Maps the sigil after the opening delimiter to a tag kind, where the
    /// tag's content starts, and what ends it.
    private func classify(_ sigil: UInt8, at offset: Int) -> (Token.Kind, Int, [UInt8]) {
        switch sigil {
        case UInt8(ascii: "{"): (.variable(escaped: false), offset + 1, Array("}".utf8) + closeDelimiter)
        case UInt8(ascii: "="): (.setDelimiters, offset + 1, Array("=".utf8) + closeDelimiter)
        case UInt8(ascii: "&"): (.variable(escaped: false), offset + 1, closeDelimiter)
        case UInt8(ascii: "!"): (.comment, offset + 1, closeDelimiter)
        case UInt8(ascii: "#"): (.section, offset + 1, closeDelimiter)
        case UInt8(ascii: "^"): (.invertedSection, offset + 1, closeDelimiter)
        case UInt8(ascii: "/"): (.close, offset + 1, closeDelimiter)
        case UInt8(ascii: ">"): (.partial, offset + 1, closeDelimiter)
        case UInt8(ascii: "<"): (.parent, offset + 1, closeDelimiter)
        case UInt8(ascii: "$"): (.block, offset + 1, closeDelimiter)
        default: (.variable(escaped: true), offset, closeDelimiter)
        }
    }

    private func validName(_ content: ArraySlice<UInt8>, for kind: Token.Kind, tagStart: Int) throws(TemplateError) -> String {
        let name = String(decoding: content, as: UTF8.self)
        guard !content.isEmpty else { throw error(at: tagStart, "empty tag") }
        guard !content.contains(where: Self.isWhitespace) else { throw error(at: tagStart, "invalid name '\(name)'") }
        switch kind {
        case .variable, .section, .invertedSection, .close:
            guard Path(name) != nil else { throw error(at: tagStart, "invalid name '\(name)'") }
        default:
            break
        }
        return name
    }

    private mutating func changeDelimiters(_ content: ArraySlice<UInt8>, tagStart: Int) throws(TemplateError) {
        let parts = content.split(whereSeparator: Self.isWhitespace)
        guard parts.count == 2, !parts.contains(where: { $0.contains(UInt8(ascii: "=")) }) else {
            throw error(at: tagStart, "invalid delimiters '\(String(decoding: content, as: UTF8.self))'")
        }
        openDelimiter = Array(parts[0])
        closeDelimiter = Array(parts[1])
    }

    // MARK: - Byte helpers

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\n")
    }

    private func trimmed(_ range: Range<Int>) -> ArraySlice<UInt8> {
        var slice = source[range]
        while let first = slice.first, Self.isWhitespace(first) { slice.removeFirst() }
        while let last = slice.last, Self.isWhitespace(last) { slice.removeLast() }
        return slice
    }

    /// The offset of the first occurrence of `needle` at or after `start`.
    private func find(_ needle: [UInt8], from start: Int) -> Int? {
        guard let first = needle.first, source.count - start >= needle.count else { return nil }
        var candidate = start
        while candidate <= source.count - needle.count {
            guard let next = source[candidate...(source.count - needle.count)].firstIndex(of: first) else { return nil }
            if source[next..<(next + needle.count)].elementsEqual(needle) { return next }
            candidate = next + 1
        }
        return nil
    }

    private func error(at offset: Int, _ message: String) -> TemplateError {
        .syntax(file: file, source: source, offset: offset, message: message)
    }
}

extension TemplateError {
    /// A syntax error at a byte offset, with its line and column worked out.
    static func syntax(file: String, source: [UInt8], offset: Int, message: String) -> TemplateError {
        let before = source[..<offset]
        let lineStart = before.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0
        let line = before.count(where: { $0 == UInt8(ascii: "\n") }) + 1
        // Count scalars, not bytes: UTF-8 continuation bytes look like 0b10xxxxxx.
        let column = source[lineStart..<offset].count(where: { $0 & 0xC0 != 0x80 }) + 1
        return TemplateError(code: .syntax, file: file, line: line, column: column, message: message)
    }
}
