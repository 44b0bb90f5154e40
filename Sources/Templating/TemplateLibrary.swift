public import Foundation

/// A set of named templates, parsed once at start, that also serves as the
/// partial resolver for their `{{>name}}` and `{{<name}}` tags.
///
/// ```swift
/// let library = try TemplateLibrary(directory: root.appending(path: "Templates"))
/// let html = try library.render("pages/dashboard", try TemplateValue(view))
/// ```
///
/// A template's name is its path below the directory without the `.mustache`
/// extension: `Templates/pages/dashboard.mustache` is `pages/dashboard`.
/// The library is immutable, so it can be shared freely between requests.
public final class TemplateLibrary: PartialResolver, Sendable {
    private static let fileExtension = ".mustache"
    private let templates: [String: Template]

    /// Loads and parses every `*.mustache` file below `directory`.
    ///
    /// - Parameter directory: The folder to search, recursively.
    /// - Throws: `TemplateError` with code `.unreadable` when the folder or a
    ///   file cannot be read, or `.syntax` with the file, line and column of the
    ///   first template that does not parse.
    public init(directory: URL) throws(TemplateError) {
        guard let paths = FileManager.default.subpaths(atPath: directory.path) else {
            throw TemplateError(code: .unreadable, file: directory.path, message: "cannot list template directory")
        }
        var templates: [String: Template] = [:]
        for path in paths.sorted() where path.hasSuffix(Self.fileExtension) {
            let source = try Self.read(directory.appendingPathComponent(path), reportedAs: path)
            templates[String(path.dropLast(Self.fileExtension.count))] = try Template(source: source, name: path)
        }
        self.templates = templates
    }

    /// Parses templates held in memory, keyed by name.
    ///
    /// - Parameter templates: Template sources by the name partials use.
    /// - Throws: `TemplateError` for the first template that does not parse.
    public init(templates: [String: String]) throws(TemplateError) {
        var parsed: [String: Template] = [:]
        for (name, source) in templates.sorted(by: { $0.key < $1.key }) {
            parsed[name] = try Template(source: source, name: name)
        }
        self.templates = parsed
    }

    /// Renders the template called `name`.
    ///
    /// - Parameters:
    ///   - name: The template's name, such as `pages/dashboard`.
    ///   - context: The data to render.
    /// - Returns: The rendered text.
    /// - Throws: `TemplateError` with code `.missingTemplate` when no template has that name.
    public func render(_ name: String, _ context: TemplateValue) throws(TemplateError) -> String {
        guard let template = templates[name] else {
            throw TemplateError(code: .missingTemplate, file: name, message: "no template with this name")
        }
        return template.render(context, partials: self)
    }

    public func template(named name: String) -> Template? {
        templates[name]
    }

    /// The names of all loaded templates, sorted.
    public var names: [String] {
        templates.keys.sorted()
    }

    private static func read(_ file: URL, reportedAs path: String) throws(TemplateError) -> String {
        do {
            return try String(contentsOf: file, encoding: .utf8)
        } catch {
            throw TemplateError(code: .unreadable, file: path, message: "cannot read template (\(error.localizedDescription))")
        }
    }
}
