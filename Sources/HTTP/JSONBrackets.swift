/// The brackets of JSON text that structure it: those outside strings (escaped quotes included).
///
/// ```swift
/// var depth = 0
/// JSONBrackets.walk(bytes) { _, opening in
///     depth += opening ? 1 : -1
///     return true
/// }
/// ```
public enum JSONBrackets {
    /// Calls `visit` with the offset of each `{` or `[` (opening) and `}` or `]` outside strings,
    /// from `start` on, until `visit` answers false or the text ends.
    public static func walk(_ bytes: UnsafeRawBufferPointer, from start: Int = 0, _ visit: (_ offset: Int, _ opening: Bool) -> Bool) {
        var inString = false
        var escaped = false
        for offset in start..<bytes.count {
            let byte = bytes[offset]
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                guard visit(offset, true) else { return }
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                guard visit(offset, false) else { return }
            default: break
            }
        }
    }
}
