/// Walks a parsed template against a context stack, writing into one string.
///
/// All whitespace decisions were made by the parser; the renderer only adds
/// the indentation of standalone partials, parents and blocks at line starts.
struct Renderer {
    /// How deeply partials, parents and blocks may nest. A template that
    /// includes itself unconditionally stops here instead of overflowing the stack.
    static let maximumDepth = 64

    var output = ""
    /// The whitespace put in front of each template line at this point.
    var indentation = ""
    /// Whether the last template text ended a line, so the next output starts one.
    var atLineStart = true
    private var stack: [TemplateValue]
    private let partials: any PartialResolver
    private var depth = 0

    init(context: TemplateValue, partials: any PartialResolver, capacity: Int) {
        stack = [context]
        self.partials = partials
        output.reserveCapacity(capacity)
    }

    /// Renders nodes with the block overrides in effect.
    mutating func render(_ nodes: [Node], overrides: [String: [Node]]) {
        for node in nodes {
            switch node {
            case .text(let text):
                write(text)
            case .variable(let path, let escaped):
                write(lookup(path), escaped: escaped)
            case .section(let path, let content, let inverted):
                renderSection(lookup(path), content, inverted: inverted, overrides: overrides)
            case .partial(let name, let indentation):
                guard let template = partials.template(named: name) else { continue }
                expand(template.nodes, indentation: indentation, overrides: overrides)
            case .parent(let name, let indentation, let arguments):
                guard let template = partials.template(named: name) else { continue }
                // Overrides from further out win: a page beats the layout layer it extends.
                expand(template.nodes, indentation: indentation, overrides: arguments.merging(overrides) { _, outer in outer })
            case .block(let name, let indentation, let content):
                expand(overrides[name] ?? content, indentation: indentation, overrides: overrides)
            }
        }
    }

    private mutating func renderSection(_ value: TemplateValue, _ content: [Node], inverted: Bool, overrides: [String: [Node]]) {
        if inverted {
            if !value.isTruthy { render(content, overrides: overrides) }
            return
        }
        switch value {
        case .array(let items):
            for item in items { renderScoped(item, content, overrides: overrides) }
        default:
            if value.isTruthy { renderScoped(value, content, overrides: overrides) }
        }
    }

    private mutating func renderScoped(_ value: TemplateValue, _ content: [Node], overrides: [String: [Node]]) {
        stack.append(value)
        render(content, overrides: overrides)
        stack.removeLast()
    }

    /// Renders another template's nodes (or a block's) in place, indented by
    /// the whitespace its standalone tag stood on.
    private mutating func expand(_ nodes: [Node], indentation own: String, overrides: [String: [Node]]) {
        guard depth < Self.maximumDepth else { return }
        let outer = indentation
        if !own.isEmpty {
            // Mid-line (the tag's own template was itself expanded inline), the
            // whitespace goes back where it stood; later lines get all of it.
            if !atLineStart { output += own }
            indentation += own
        }
        depth += 1
        render(nodes, overrides: overrides)
        depth -= 1
        indentation = outer
    }

    /// Resolves a name: the first part through the stack from the top, each
    /// further part only in the previous result.
    private func lookup(_ path: Path) -> TemplateValue {
        switch path {
        case .implicit:
            return stack.last ?? .null
        case .keys(let keys):
            guard var value = firstInStack(keys[0]) else { return .null }
            for key in keys.dropFirst() {
                guard let next = value[key] else { return .null }
                value = next
            }
            return value
        }
    }

    private func firstInStack(_ key: String) -> TemplateValue? {
        for value in stack.reversed() {
            if let found = value[key] { return found }
        }
        return nil
    }
}
