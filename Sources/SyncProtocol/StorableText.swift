/// Text the server can store. PostgreSQL `text` and `jsonb` cannot hold U+0000, so a request
/// carrying it would fail at the database every time; the server refuses it when it reads the
/// request (400 `VALIDATION_FAILED` naming where), and devices should never send it.
public enum StorableText {
    /// Whether `text` is free of U+0000.
    public static func isStorable(_ text: String) -> Bool {
        // Scanned as one buffer: through `String.UTF8View` each byte costs a call.
        var text = text
        return text.withUTF8 { !$0.contains(0) }
    }

    /// Whether every string and object key inside `value` is storable.
    public static func isStorable(_ value: JSONValue) -> Bool {
        switch value {
        case .string(let text): isStorable(text)
        case .array(let items): items.allSatisfy(isStorable)
        case .object(let members): members.allSatisfy { isStorable($0.key) && isStorable($0.value) }
        case .null, .bool, .int, .double: true
        }
    }
}
