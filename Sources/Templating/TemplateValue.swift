/// A value a template renders: the JSON-like data model Mustache walks.
///
/// Build one from literals, from a Codable view model, or from a
/// `JSONSerialization` result:
///
/// ```swift
/// let context: TemplateValue = ["title": "Devices", "count": 3, "items": ["a", "b"]]
/// let fromModel = try TemplateValue(DashboardView(devices: devices))
/// ```
///
/// Truthiness (for `{{#name}}` and `{{^name}}`): `null`, `false`, the empty
/// array and the empty string are falsey; everything else, including `0`, is truthy.
public enum TemplateValue: Sendable, Equatable {
    /// Text; HTML-escaped by `{{name}}`, inserted as is by `{{{name}}}` and `{{&name}}`.
    case string(String)
    /// A whole number, printed without a fraction.
    case int(Int)
    /// A floating-point number, printed in its shortest form.
    case double(Double)
    /// Prints as `true` or `false`; `false` hides a section.
    case bool(Bool)
    /// Nothing: prints as empty text and hides a section.
    case null
    /// A list; a section renders once per element, with the element on top of the stack.
    case array([TemplateValue])
    /// Named values, looked up by tag names (`{{user.email}}`).
    case dictionary([String: TemplateValue])

    /// Whether a section over this value renders (and an inverted section does not).
    public var isTruthy: Bool {
        switch self {
        case .null: false
        case .bool(let value): value
        case .array(let items): !items.isEmpty
        case .string(let text): !text.isEmpty
        case .int, .double, .dictionary: true
        }
    }

    /// The text an interpolation tag inserts, before escaping.
    ///
    /// Integers print without a fraction; doubles print in their shortest
    /// round-tripping form (`1.21`), and integral doubles drop the `.0` the way
    /// JSON renderers do. `null`, arrays and dictionaries interpolate as nothing.
    public var interpolatedText: String {
        switch self {
        case .string(let text): text
        case .int(let value): String(value)
        case .double(let value): Self.format(value)
        case .bool(let value): value ? "true" : "false"
        case .null, .array, .dictionary: ""
        }
    }

    /// Looks up `key` when this value is a dictionary.
    public subscript(key: String) -> TemplateValue? {
        guard case .dictionary(let entries) = self else { return nil }
        return entries[key]
    }

    private static func format(_ value: Double) -> String {
        // 2^53: beyond it a double no longer holds every integer exactly.
        if value.rounded() == value, abs(value) < 9_007_199_254_740_992 {
            return String(Int64(value))
        }
        return String(value)
    }
}

// MARK: - Literals

extension TemplateValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByNilLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(nilLiteral: ()) { self = .null }
    public init(arrayLiteral elements: TemplateValue...) { self = .array(elements) }

    public init(dictionaryLiteral elements: (String, TemplateValue)...) {
        self = .dictionary(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
