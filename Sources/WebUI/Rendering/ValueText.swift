import SyncProtocol

/// Record values as text on pages: strings as they are, lists of strings comma-separated,
/// objects one `name: value` line per member, anything else as compact JSON.
enum ValueText {
    static func text(_ value: JSONValue?) -> String {
        switch value {
        case nil, .null?: "—"
        case .object(let members)?: members.sorted { $0.key < $1.key }.map { "\($0.key): \(inline($0.value))" }.joined(separator: "\n")
        case .array(let items)? where !items.isEmpty && items.allSatisfy({ $0.stringValue != nil }):
            items.compactMap(\.stringValue).joined(separator: ", ")
        case let other?: inline(other)
        }
    }

    /// One value on one line.
    private static func inline(_ value: JSONValue) -> String {
        value.stringValue ?? String(decoding: value.canonicalData(), as: UTF8.self)
    }
}
