import Foundation

/// What a person typed into the back-office search box, checked before any query runs:
/// trimmed, at most `maximumLength` characters, no control characters.
///
/// ```swift
/// switch SearchTerm.parse(" ord-12 ") {
/// case .success(let term): term.text        // "ord-12"
/// case .failure(let problem): problem        // .tooLong, .controlCharacters
/// }
/// ```
public struct SearchTerm: Sendable, Equatable {
    /// The longest text searched for; a longer one is refused, not cut.
    public static let maximumLength = 100

    /// The trimmed text, matched literally: `%`, `_` and `\` are ordinary characters.
    public let text: String

    /// Why a text is not searched for.
    public enum Problem: Error, Equatable {
        case empty
        case tooLong
        case controlCharacters
    }

    /// The term for `raw`, or why it cannot be one.
    public static func parse(_ raw: String) -> Result<SearchTerm, Problem> {
        let text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        if text.isEmpty { return .failure(.empty) }
        if text.count > maximumLength { return .failure(.tooLong) }
        if text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) { return .failure(.controlCharacters) }
        return .success(SearchTerm(text: text))
    }
}
