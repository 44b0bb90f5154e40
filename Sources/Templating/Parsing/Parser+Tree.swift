extension Parser {
    /// Builds the nodes for a range of annotated tokens.
    ///
    /// Pairs are consumed whole (their content recursively), so `range` never
    /// reaches a closing tag on its own.
    func buildNodes(_ range: Range<Int>) -> [Node] {
        var nodes = NodeList()
        var index = range.lowerBound
        while index < range.upperBound {
            let token = tokens[index]
            let end = token.kind.opensPair ? (token.partner ?? index) : index
            switch token.kind {
            case .text:
                nodes.appendText(text(of: index))
            case .variable(let escaped):
                if let path = Path(token.name) { nodes.append(.variable(path, escaped: escaped)) }
            case .section, .invertedSection:
                if let path = Path(token.name) {
                    nodes.append(.section(path, buildNodes((index + 1)..<end), inverted: token.kind == .invertedSection))
                }
            case .block:
                nodes.append(.block(token.name, indentation: token.indentation, content: buildNodes((index + 1)..<end)))
            case .parent:
                nodes.append(.parent(token.name, indentation: token.indentation, overrides: overrides((index + 1)..<end)))
            case .partial:
                nodes.append(.partial(token.name, indentation: token.indentation))
            case .comment, .setDelimiters, .close:
                break
            }
            index = end + 1
        }
        return nodes.finish()
    }

    /// The blocks directly inside a parent tag, by name; everything else there is ignored.
    private func overrides(_ range: Range<Int>) -> [String: [Node]] {
        var result: [String: [Node]] = [:]
        var index = range.lowerBound
        while index < range.upperBound {
            let token = tokens[index]
            let end = token.kind.opensPair ? (token.partner ?? index) : index
            if token.kind == .block { result[token.name] = buildNodes((index + 1)..<end) }
            index = end + 1
        }
        return result
    }
}

/// Collects nodes, merging consecutive text into one node so the renderer
/// writes one run instead of one per source line.
private struct NodeList {
    private var nodes: [Node] = []
    private var pendingText: [UInt8] = []

    mutating func appendText(_ bytes: ArraySlice<UInt8>) {
        pendingText.append(contentsOf: bytes)
    }

    mutating func append(_ node: Node) {
        flushText()
        nodes.append(node)
    }

    mutating func finish() -> [Node] {
        flushText()
        return nodes
    }

    private mutating func flushText() {
        guard !pendingText.isEmpty else { return }
        nodes.append(.text(String(decoding: pendingText, as: UTF8.self)))
        pendingText.removeAll(keepingCapacity: true)
    }
}
