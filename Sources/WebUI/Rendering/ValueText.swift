import SyncProtocol

/// Record values as text on pages: strings as they are, anything else as compact JSON.
enum ValueText {
    static func text(_ value: JSONValue?) -> String {
        switch value {
        case nil, .null?: "—"
        case .string(let text)?: text
        case let other?: String(decoding: other.canonicalData(), as: UTF8.self)
        }
    }
}
