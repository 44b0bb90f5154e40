// Mustache's whitespace rules, worked out once at parse time.
//
// A tag that "stands alone" on its line takes the line's leading whitespace and
// its line ending with it. Parents and blocks bend the rule: text directly inside
// a parent tag is ignored, so it never keeps a neighbouring tag from standing
// alone, and a block re-indents its content to wherever it is expanded (the
// ~inheritance spec's "Block reindentation" cases).

extension Parser {
    /// Numbers source lines and records where each one starts.
    mutating func assignLines() {
        lineStarts = []
        for index in tokens.indices {
            if index == 0 || endsLine(index - 1) { lineStarts.append(index) }
            tokens[index].line = lineStarts.count - 1
        }
    }

    /// Marks each tag that is alone on its line, ignoring text inside parents.
    mutating func markStandaloneTags() {
        for index in tokens.indices where tokens[index].kind.canStandAlone {
            tokens[index].isStandalone = isClearOnLeft(index) && isClearOnRight(index)
        }
    }

    /// Removes a standalone block's own indentation (that of its first content
    /// line) from each of its lines; rendering adds the expansion site's back.
    ///
    /// Outer blocks go first, so a nested block measures its indentation
    /// relative to the block around it.
    mutating func removeBlockIndentation() {
        for open in tokens.indices where tokens[open].kind == .block && tokens[open].isStandalone {
            guard let close = tokens[open].partner, let indentation = firstContentIndentation(open, close) else { continue }
            tokens[open].intrinsicIndentation = String(decoding: indentation, as: UTF8.self)
            guard !indentation.isEmpty, tokens[open].line < tokens[close].line else { continue }
            for line in (tokens[open].line + 1)...tokens[close].line {
                let first = lineStarts[line]
                guard first < close, tokens[first].kind == .text else { continue }
                let common = zip(text(of: first), indentation).prefix(while: { $0 == $1 }).count
                tokens[first].range = (tokens[first].range.lowerBound + common)..<tokens[first].range.upperBound
            }
        }
    }

    /// Drops the leading whitespace and line ending of every line holding a
    /// standalone tag; a partial, parent or block keeps that whitespace as its
    /// indentation.
    mutating func removeStandaloneWhitespace() {
        for line in lineStarts.indices {
            let first = lineStarts[line]
            let last = lastToken(onLine: line)
            guard (first...last).contains(where: { tokens[$0].isStandalone }) else { continue }
            if first < last, isBlankText(first) {
                if tokens[first + 1].isStandalone { tokens[first + 1].indentation = String(decoding: text(of: first), as: UTF8.self) }
                empty(first)
            }
            if first < last, isBlankText(last) { empty(last) }
        }
    }

    /// Decides the indentation each block adds to the content expanded in its place.
    ///
    /// A block with intrinsic indentation uses it. Otherwise a block pair that
    /// stands alone (`  {{$name}}{{/name}}` on one line, or an empty block whose
    /// tags each stand alone) uses the whitespace in front of its opening tag.
    /// Any other block adds nothing.
    mutating func assignBlockIndentation() {
        for open in tokens.indices where tokens[open].kind == .block && !isDirectlyInParent(open) {
            if let intrinsic = tokens[open].intrinsicIndentation {
                tokens[open].indentation = intrinsic
                continue
            }
            guard let close = tokens[open].partner, isClearOnLeft(open), isClearOnRight(close) else {
                tokens[open].indentation = ""
                continue
            }
            // A standalone opening tag already kept its line's whitespace.
            guard !tokens[open].isStandalone else { continue }
            let first = lineStarts[tokens[open].line]
            guard tokens[open].line == tokens[close].line, first < open, isBlankText(first) else { continue }
            tokens[open].indentation = String(decoding: text(of: first), as: UTF8.self)
            empty(first)
        }
    }

    // MARK: - Clearance

    /// Whether nothing but whitespace precedes the tag on its line.
    ///
    /// Inside a parent only the parent's own clearance counts: the text between
    /// `{{<parent}}` and its blocks is never rendered.
    private func isClearOnLeft(_ index: Int) -> Bool {
        let token = tokens[index]
        if token.kind == .close, let opener = token.partner, tokens[opener].kind == .parent {
            return tokens[opener].line == token.line ? isClearOnLeft(opener) : true
        }
        if token.kind != .close, isDirectlyInParent(index), let parent = token.enclosing {
            return tokens[parent].line == token.line ? isClearOnLeft(parent) : true
        }
        return (lineStarts[token.line]..<index).allSatisfy(isBlankText)
    }

    /// Whether nothing but whitespace follows the tag up to the end of its line,
    /// again looking through the ignored text inside a parent.
    private func isClearOnRight(_ index: Int) -> Bool {
        let token = tokens[index]
        if token.kind == .parent, let close = token.partner {
            return tokens[close].line == token.line ? isClearOnRight(close) : true
        }
        if token.kind == .close, isDirectlyInParent(index), let parent = token.enclosing, let parentClose = tokens[parent].partner {
            return tokens[parentClose].line == token.line ? isClearOnRight(parentClose) : true
        }
        return ((index + 1)..<(lastToken(onLine: token.line) + 1)).allSatisfy(isBlankText)
    }

    // MARK: - Helpers

    /// The leading whitespace of the first line inside a block that has
    /// anything but whitespace on it, or nil when the block is blank.
    private func firstContentIndentation(_ open: Int, _ close: Int) -> ArraySlice<UInt8>? {
        for line in (tokens[open].line + 1)..<(tokens[close].line + 1) {
            let first = lineStarts[line]
            let tokensBeforeClose = first..<min(lastToken(onLine: line) + 1, close)
            guard tokensBeforeClose.contains(where: { !isBlankText($0) }) else { continue }
            guard tokens[first].kind == .text else { return [] }
            return text(of: first).prefix(while: { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") })
        }
        return nil
    }

    private func endsLine(_ index: Int) -> Bool {
        tokens[index].kind == .text && text(of: index).last == UInt8(ascii: "\n")
    }

    private func lastToken(onLine line: Int) -> Int {
        (line + 1 < lineStarts.count ? lineStarts[line + 1] : tokens.count) - 1
    }

    private mutating func empty(_ index: Int) {
        tokens[index].range = tokens[index].range.upperBound..<tokens[index].range.upperBound
    }
}
