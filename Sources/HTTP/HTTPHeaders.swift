/// An ordered list of header fields with case-insensitive names.
///
/// Order and repeated fields are kept, as they arrived or were added:
/// ```swift
/// var headers = HTTPHeaders([("Content-Type", "text/plain")])
/// headers.add(name: "Set-Cookie", value: "a=1")
/// headers.add(name: "Set-Cookie", value: "b=2")
/// headers["content-type"]   // "text/plain"
/// headers.values("set-cookie") // ["a=1", "b=2"]
/// ```
public struct HTTPHeaders: Sendable, Sequence {
    public typealias Element = (name: String, value: String)

    private var fields: [Element]

    public init() {
        fields = []
    }

    public init(_ pairs: [(String, String)]) {
        fields = pairs.map { (name: $0.0, value: $0.1) }
    }

    /// The first value of `name`; setting replaces every field of that name (nil removes them).
    public subscript(name: String) -> String? {
        get { fields.first { Self.sameName($0.name, name) }?.value }
        set {
            fields.removeAll { Self.sameName($0.name, name) }
            if let newValue { fields.append((name: name, value: newValue)) }
        }
    }

    /// Appends a field, keeping any earlier fields with the same name.
    public mutating func add(name: String, value: String) {
        fields.append((name: name, value: value))
    }

    /// Every value of `name`, in order.
    public func values(_ name: String) -> [String] {
        fields.filter { Self.sameName($0.name, name) }.map(\.value)
    }

    /// Whether a field named `name` is present.
    public func contains(_ name: String) -> Bool {
        fields.contains { Self.sameName($0.name, name) }
    }

    /// The number of fields, counting repeated names separately.
    public var count: Int { fields.count }

    public func makeIterator() -> IndexingIterator<[Element]> {
        fields.makeIterator()
    }

    /// ASCII case-insensitive comparison without allocating lowercased copies; header
    /// names are ASCII tokens (RFC 9110 §5.1).
    static func sameName(_ lhs: String, _ rhs: String) -> Bool {
        var lhs = lhs
        var rhs = rhs
        return lhs.withUTF8 { left in
            rhs.withUTF8 { right in
                guard left.count == right.count else { return false }
                for index in 0..<left.count where lowercased(left[index]) != lowercased(right[index]) {
                    return false
                }
                return true
            }
        }
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (0x41...0x5A).contains(byte) ? byte | 0x20 : byte
    }
}

extension HTTPHeaders: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }
}
