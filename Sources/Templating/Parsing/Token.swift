/// One piece of template source: a run of text or a tag.
///
/// The lexer fills `kind`, `range` and `name`; the later parser passes annotate
/// nesting (`partner`, `enclosing`), lines and whitespace handling in place.
struct Token {
    enum Kind: Equatable {
        case text
        case variable(escaped: Bool)
        case section
        case invertedSection
        case block
        case parent
        case close
        case partial
        case comment
        case setDelimiters

        /// Tags that open a pair closed by `{{/name}}`.
        var opensPair: Bool {
            switch self {
            case .section, .invertedSection, .block, .parent: true
            default: false
            }
        }

        /// Tags that may stand alone on a line and take its whitespace with them.
        var canStandAlone: Bool {
            switch self {
            case .text, .variable: false
            default: true
            }
        }

        /// How error messages name a pair of this kind.
        var pairDescription: String {
            switch self {
            case .invertedSection: "inverted section"
            case .block: "block"
            case .parent: "parent"
            default: "section"
            }
        }
    }

    var kind: Kind
    /// Byte offsets in the source: the text itself, or the whole tag with delimiters.
    var range: Range<Int>
    /// The trimmed tag content (a name); empty for text, comments and delimiter changes.
    var name: String = ""
    /// For a pair's opening or closing tag, the index of the other one.
    var partner: Int?
    /// The index of the innermost opening tag around this token; for a closing
    /// tag, the one around its pair.
    var enclosing: Int?
    /// The index of the source line (split at "\n") the token starts on.
    var line = 0
    /// Whether the tag is alone on its line, so the line's whitespace belongs to the tag.
    var isStandalone = false
    /// The whitespace taken from in front of a standalone partial, parent or block tag.
    var indentation = ""
    /// For a block whose opening tag stands alone: the indentation of its first content line.
    var intrinsicIndentation: String?
}
