/// A parsed Mustache template, ready to render any number of times.
///
/// Parsing happens once, in `init`, and reports syntax errors with their
/// position; rendering walks the parsed tree and cannot fail.
///
/// ```swift
/// let template = try Template(source: "<h1>{{title}}</h1>{{>footer}}", name: "page")
/// let html = template.render(["title": "Devices"], partials: library)
/// ```
///
/// Supported: HTML-escaped `{{name}}` (escaping `& < > " '`), raw `{{{name}}}` and
/// `{{&name}}`, dotted names, `{{.}}`, sections, inverted sections, comments,
/// `{{=<% %>=}}` delimiter changes, partials with standalone indentation, and
/// parents with blocks (`{{<layout}}{{$content}}…{{/content}}{{/layout}}`).
/// Lambdas are not.
public struct Template: Sendable {
    /// The name errors and diagnostics use.
    public let name: String
    let nodes: [Node]
    private let sourceSize: Int

    /// Parses a template.
    ///
    /// - Parameters:
    ///   - source: The Mustache text.
    ///   - name: The file name reported in errors.
    /// - Throws: `TemplateError` (code `.syntax`) for an unclosed tag or section,
    ///   a mismatched closing tag, an invalid name or a bad delimiter change.
    public init(source: String, name: String = "inline") throws(TemplateError) {
        self.name = name
        self.nodes = try Parser.parse(source, file: name)
        self.sourceSize = source.utf8.count
    }

    /// Renders the template.
    ///
    /// Names that resolve to nothing render as empty text, and missing partials
    /// or parents render as nothing, as the Mustache spec asks.
    ///
    /// - Parameters:
    ///   - context: The data at the bottom of the context stack.
    ///   - partials: Where `{{>name}}` and `{{<name}}` find their templates.
    /// - Returns: The rendered text.
    public func render(_ context: TemplateValue, partials: any PartialResolver) -> String {
        var renderer = Renderer(context: context, partials: partials, capacity: sourceSize * 2)
        renderer.render(nodes, overrides: [:])
        return renderer.output
    }
}

/// Finds the templates that partial (`{{>name}}`) and parent (`{{<name}}`) tags name.
public protocol PartialResolver: Sendable {
    /// The template called `name`, or nil when there is none.
    func template(named name: String) -> Template?
}
