/// Turns template source into the node tree `Template` renders.
///
/// Parsing runs in passes over one token array, each annotating tokens in place:
/// 1. the `Lexer` cuts the source into tokens;
/// 2. `pairTags()` matches opening and closing tags and reports nesting errors;
/// 3. `assignLines()` and `markStandaloneTags()` find tags alone on their line;
/// 4. `removeBlockIndentation()` strips a block's own indentation from its lines;
/// 5. `removeStandaloneWhitespace()` drops the whitespace and newlines that belong to standalone tags;
/// 6. `assignBlockIndentation()` decides what indentation each block adds where it expands;
/// 7. `buildNodes(_:)` builds the tree.
///
/// All whitespace work happens here, once, so rendering is a plain tree walk.
struct Parser {
    let source: [UInt8]
    let file: String
    var tokens: [Token]
    /// For each line, the index of its first token.
    var lineStarts: [Int] = []

    /// Parses `source` into nodes.
    ///
    /// - Parameters:
    ///   - source: The template text.
    ///   - file: The name errors report.
    /// - Throws: `TemplateError` with the position of the first syntax error.
    static func parse(_ source: String, file: String) throws(TemplateError) -> [Node] {
        let bytes = Array(source.utf8)
        var parser = Parser(source: bytes, file: file, tokens: try Lexer.tokenize(bytes, file: file))
        try parser.pairTags()
        parser.assignLines()
        parser.markStandaloneTags()
        parser.removeBlockIndentation()
        parser.removeStandaloneWhitespace()
        parser.assignBlockIndentation()
        return parser.buildNodes(parser.tokens.indices)
    }

    /// The text of a text token as it stands after the whitespace passes.
    func text(of index: Int) -> ArraySlice<UInt8> {
        source[tokens[index].range]
    }

    /// Whether a token is text made only of spaces, tabs and line endings.
    func isBlankText(_ index: Int) -> Bool {
        tokens[index].kind == .text && text(of: index).allSatisfy(Self.isBlank)
    }

    static func isBlank(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\n")
    }

    /// Whether the token's enclosing tag is a parent, whose own text is ignored.
    func isDirectlyInParent(_ index: Int) -> Bool {
        guard let enclosing = tokens[index].enclosing else { return false }
        return tokens[enclosing].kind == .parent
    }
}

// MARK: - Pairing

extension Parser {
    /// Matches every `{{/name}}` with its opening tag and records nesting.
    ///
    /// - Throws: `TemplateError` for a closing tag with no opening tag, a closing
    ///   tag naming another section, or a section still open at the end.
    mutating func pairTags() throws(TemplateError) {
        var open: [Int] = []
        for index in tokens.indices {
            tokens[index].enclosing = open.last
            if tokens[index].kind.opensPair {
                open.append(index)
            } else if tokens[index].kind == .close {
                try close(index, matching: open.popLast())
            }
        }
        if let unclosed = open.last {
            let token = tokens[unclosed]
            throw error(at: unclosed, "unclosed \(token.kind.pairDescription) '\(token.name)'")
        }
    }

    private mutating func close(_ index: Int, matching opener: Int?) throws(TemplateError) {
        let name = tokens[index].name
        guard let opener else { throw error(at: index, "closing tag '\(name)' has no open section") }
        let open = tokens[opener]
        guard open.name == name else {
            throw error(
                at: index,
                "closing tag '\(name)' does not match open \(open.kind.pairDescription) '\(open.name)' (line \(lineNumber(of: opener)))"
            )
        }
        tokens[opener].partner = index
        tokens[index].partner = opener
        tokens[index].enclosing = open.enclosing
    }

    private func lineNumber(of index: Int) -> Int {
        error(at: index, "").line
    }

    private func error(at index: Int, _ message: String) -> TemplateError {
        .syntax(file: file, source: source, offset: tokens[index].range.lowerBound, message: message)
    }
}
