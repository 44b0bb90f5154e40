/// A template that could not be loaded, parsed or found.
///
/// `description` reads like a compiler diagnostic, `file:line:column: message`,
/// so a broken template fails the server's start with a pointer to the tag:
///
/// ```
/// pages/dashboard.mustache:12:5: closing tag 'items' does not match open section 'devices' (line 9)
/// ```
///
/// Errors that have no position in a file (a missing template, an unreadable
/// directory) have `line` 0 and print as `file: message`.
public struct TemplateError: Error, CustomStringConvertible, Sendable {
    /// What kind of failure this is; extensible without breaking callers.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let description: String

        /// The template text is not valid Mustache.
        public static let syntax = Code(description: "syntax")
        /// No template has the requested name.
        public static let missingTemplate = Code(description: "missingTemplate")
        /// A template file or directory could not be read.
        public static let unreadable = Code(description: "unreadable")
    }

    public var code: Code
    /// The template's file name (or name, for in-memory templates).
    public var file: String
    /// The 1-based line of the offending tag, or 0 when there is no position.
    public var line: Int
    /// The 1-based column (in Unicode scalars) of the offending tag.
    public var column: Int
    public var message: String

    public init(code: Code, file: String, line: Int = 0, column: Int = 0, message: String) {
        self.code = code
        self.file = file
        self.line = line
        self.column = column
        self.message = message
    }

    public var description: String {
        line > 0 ? "\(file):\(line):\(column): \(message)" : "\(file): \(message)"
    }
}
