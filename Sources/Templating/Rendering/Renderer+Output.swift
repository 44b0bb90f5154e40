extension Renderer {
    /// Writes template text, indenting each line that starts in it.
    mutating func write(_ text: String) {
        guard !text.isEmpty else { return }
        if indentation.isEmpty {
            output += text
        } else {
            writeIndented(text)
        }
        atLineStart = text.utf8.last == UInt8(ascii: "\n")
    }

    /// Writes an interpolated value. Newlines inside data never start indented
    /// lines: indentation belongs to the template's lines, not the data's.
    mutating func write(_ value: TemplateValue, escaped: Bool) {
        let text = value.interpolatedText
        guard !text.isEmpty else { return }
        if atLineStart { output += indentation }
        if escaped, case .string = value {
            appendEscaped(text)
        } else {
            output += text
        }
        atLineStart = false
    }

    private mutating func writeIndented(_ text: String) {
        let utf8 = text.utf8
        var lineStart = utf8.startIndex
        var startsLine = atLineStart
        while lineStart < utf8.endIndex {
            let lineEnd = utf8[lineStart...].firstIndex(of: UInt8(ascii: "\n")).map { utf8.index(after: $0) } ?? utf8.endIndex
            if startsLine { output += indentation }
            output += text[lineStart..<lineEnd]
            startsLine = true
            lineStart = lineEnd
        }
    }

    /// Appends text with `&`, `<`, `>`, `"` and `'` replaced by HTML entities,
    /// copying the runs between them in one piece.
    private mutating func appendEscaped(_ text: String) {
        let utf8 = text.utf8
        var runStart = utf8.startIndex
        var index = runStart
        while index < utf8.endIndex {
            if let entity = Self.entity(for: utf8[index]) {
                output += text[runStart..<index]
                output += entity
                runStart = utf8.index(after: index)
            }
            index = utf8.index(after: index)
        }
        output += text[runStart..<utf8.endIndex]
    }

    private static func entity(for byte: UInt8) -> String? {
        switch byte {
        case UInt8(ascii: "&"): "&amp;"
        case UInt8(ascii: "<"): "&lt;"
        case UInt8(ascii: ">"): "&gt;"
        case UInt8(ascii: "\""): "&quot;"
        case UInt8(ascii: "'"): "&#39;"
        default: nil
        }
    }
}
