public import Foundation

/// Any JSON value, as it travels in payloads, field changes and error details.
///
/// Integers stay integers: `135` decodes as ``int(_:)`` and re-encodes as `135`, never
/// `135.0`. Numbers compare numerically, so `.int(2) == .double(2.0)`.
///
/// ```swift
/// let payload: JSONValue = ["status": "complete", "labor_minutes": 135, "tags": ["a", "b"]]
/// payload["labor_minutes"]?.intValue  // 135
/// ```
public enum JSONValue: Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])
}

// MARK: - Codable

extension JSONValue: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        // Each failed attempt costs a thrown DecodingError, so the likeliest payload types go first.
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode([String: JSONValue].self) {
            self = .object(value)
        } else {
            self = .array(try container.decode([JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

// MARK: - Equality

extension JSONValue: Hashable {
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a == b
        case (.int(let a), .int(let b)): a == b
        case (.double(let a), .double(let b)): a == b
        case (.int(let a), .double(let b)), (.double(let b), .int(let a)): Int64(exactly: b) == a
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let value): hasher.combine(value)
        case .string(let value): hasher.combine(value)
        case .array(let value): hasher.combine(value)
        case .object(let value): hasher.combine(value)
        case .int(let value): hasher.combine(value)
        // An integral double hashes like the equal integer, keeping == and hash consistent.
        case .double(let value):
            if let integral = Int64(exactly: value) { hasher.combine(integral) } else { hasher.combine(value) }
        }
    }
}

// MARK: - Literals

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

// MARK: - Accessors

extension JSONValue {
    /// `true` for ``null``.
    public var isNull: Bool { self == .null }

    /// The string, when this is a string.
    public var stringValue: String? {
        if case .string(let value) = self { value } else { nil }
    }

    /// The boolean, when this is a boolean.
    public var boolValue: Bool? {
        if case .bool(let value) = self { value } else { nil }
    }

    /// The integer, when this is an integer or a double with an exact integer value.
    public var intValue: Int64? {
        switch self {
        case .int(let value): value
        case .double(let value): Int64(exactly: value)
        default: nil
        }
    }

    /// The number as a double, when this is any number.
    public var doubleValue: Double? {
        switch self {
        case .int(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }

    /// The elements, when this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { value } else { nil }
    }

    /// The members, when this is an object.
    public var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { value } else { nil }
    }

    /// The member `key` of an object; `nil` for a missing key or a non-object.
    public subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }

    /// How deeply arrays and objects nest: 0 for a scalar, 1 for `[]` or `{}`.
    ///
    /// The HTTP layer uses it to answer `MALFORMED_JSON` for bodies nested deeper than allowed.
    public var depth: Int {
        switch self {
        case .array(let values): 1 + (values.map(\.depth).max() ?? 0)
        case .object(let members): 1 + (members.values.map(\.depth).max() ?? 0)
        default: 0
        }
    }
}

// MARK: - Bridging Codable values

extension JSONValue {
    /// Converts any `Encodable` value into its JSON tree.
    ///
    /// - Throws: `EncodingError` when the value cannot be encoded.
    public init(encoding value: some Encodable) throws {
        let data = try JSONEncoder().encode(value)
        self = try JSONDecoder().decode(JSONValue.self, from: data)
    }

    /// Decodes a `Decodable` type from this JSON tree.
    ///
    /// - Throws: `DecodingError` when the tree does not match `type`.
    public func decode<T: Decodable>(as type: T.Type) throws -> T {
        try JSONDecoder().decode(type, from: try JSONEncoder().encode(self))
    }

    /// The canonical encoding: object keys sorted, no insignificant whitespace, slashes and
    /// non-ASCII characters unescaped, integral doubles written as integers.
    ///
    /// Equal trees (in the sense of `==`) give equal bytes, which makes the encoding usable as a
    /// fingerprint. Written by hand because it runs once per pushed op: it must be cheap.
    public func canonicalData() -> Data {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        writeCanonical(into: &bytes)
        return Data(bytes)
    }

    /// Appends ``canonicalData()``'s bytes, for writers that assemble larger JSON texts around values.
    public func writeCanonical(into bytes: inout [UInt8]) {
        switch self {
        case .null: bytes.append(contentsOf: "null".utf8)
        case .bool(let value): bytes.append(contentsOf: (value ? "true" : "false").utf8)
        case .int(let value): bytes.append(contentsOf: String(value).utf8)
        case .double(let value): bytes.append(contentsOf: Self.canonicalNumber(value).utf8)
        case .string(let value): Self.writeString(value, into: &bytes)
        case .array(let values):
            bytes.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                value.writeCanonical(into: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            bytes.append(UInt8(ascii: "{"))
            // Sorting the members, not the keys: no second hash lookup of each key.
            for (index, member) in members.sorted(by: { $0.key < $1.key }).enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                Self.writeString(member.key, into: &bytes)
                bytes.append(UInt8(ascii: ":"))
                member.value.writeCanonical(into: &bytes)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// Integral doubles print as integers (so `2.0` and `2` agree); non-finite numbers as `null`.
    private static func canonicalNumber(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if let integral = Int64(exactly: value) { return String(integral) }
        return "\(value)"
    }

    fileprivate static func writeString(_ value: String, into bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        // Scanned as one buffer: through `String.UTF8View` each byte costs a call.
        var value = value
        value.withUTF8 { utf8 in writeEscaped(utf8, into: &bytes) }
        bytes.append(UInt8(ascii: "\""))
    }

    private static func writeEscaped(_ utf8: UnsafeBufferPointer<UInt8>, into bytes: inout [UInt8]) {
        if !utf8.contains(where: needsEscape) {
            bytes.append(contentsOf: utf8)
        } else {
            for byte in utf8 {
                if !needsEscape(byte) {
                    bytes.append(byte)
                } else if byte < 0x20 {
                    bytes.append(contentsOf: "\\u00".utf8)
                    bytes += [hexDigit(byte >> 4), hexDigit(byte & 0xF)]
                } else {
                    bytes += [UInt8(ascii: "\\"), byte]
                }
            }
        }
    }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}

/// A JSON object written in canonical form (``JSONValue/canonicalData()``) by a type that names
/// its members itself, in ascending order, instead of building a `JSONValue` tree to be sorted:
/// the same bytes without the dictionary. A nil value leaves its member out, as a tree would.
///
/// ```swift
/// var object = CanonicalObject(into: &bytes)
/// object.member("opId", .string(opId), into: &bytes)
/// object.member("status", .string(status), into: &bytes)
/// object.close(into: &bytes)
/// ```
public struct CanonicalObject {
    private var count = 0
    #if DEBUG
    private var lastName: String?
    #endif

    /// Opens the object: appends its `{`.
    public init(into bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "{"))
    }

    /// Appends `"name":value` unless `value` is nil.
    public mutating func member(_ name: String, _ value: JSONValue?, into bytes: inout [UInt8]) {
        guard let value else { return }
        open(name, into: &bytes)
        value.writeCanonical(into: &bytes)
    }

    /// Appends `"name":`; the caller writes the value next.
    public mutating func open(_ name: String, into bytes: inout [UInt8]) {
        #if DEBUG
        assert(lastName.map { $0 < name } ?? true, "member \(name) is out of canonical order")
        lastName = name
        #endif
        if count > 0 { bytes.append(UInt8(ascii: ",")) }
        count += 1
        JSONValue.writeString(name, into: &bytes)
        bytes.append(UInt8(ascii: ":"))
    }

    /// Closes the object: appends its `}`.
    public func close(into bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "}"))
    }
}
