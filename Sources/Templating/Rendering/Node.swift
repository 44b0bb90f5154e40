/// A parsed template: what the renderer walks.
enum Node: Sendable {
    case text(String)
    case variable(Path, escaped: Bool)
    case section(Path, [Node], inverted: Bool)
    /// `{{>name}}`; `indentation` is the whitespace in front of a standalone tag.
    case partial(String, indentation: String)
    /// `{{<name}}…{{/name}}`: expands `name`, replacing its blocks with `overrides`.
    case parent(String, indentation: String, overrides: [String: [Node]])
    /// `{{$name}}…{{/name}}`: an override when one is in effect, else its default content.
    case block(String, indentation: String, content: [Node])
}

/// A tag's name, resolved against the context stack.
enum Path: Sendable, Equatable {
    /// `.`: the value on top of the stack.
    case implicit
    /// `a.b.c`: `a` is looked up through the stack, then each later key in the previous result.
    case keys([String])

    /// Parses a name; nil when a dotted name has an empty part (`a..b`, `.a`).
    init?(_ name: String) {
        if name == "." {
            self = .implicit
            return
        }
        let keys = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !keys.contains(where: \.isEmpty) else { return nil }
        self = .keys(keys)
    }
}
