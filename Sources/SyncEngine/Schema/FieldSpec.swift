public import SyncProtocol

/// The declared shape of one field: its type and the rules that go with it.
///
/// In `schema.json` a field reads like
/// `{"type": "string", "enum": ["open", "done"], "default": "open", "required": true}`.
/// Keys: `type` (see ``FieldType``), `items` (arrays), `properties` (objects with a fixed shape),
/// `required` (on create), `enum`, `default` (filled on create), `min` (numbers: smallest value;
/// arrays: fewest items), `writeRoles` (server-owned: only these roles may write it),
/// `precedence` (highest value first) and `transitions` (`{"from": ["to", …]}`).
public struct FieldSpec: Sendable, Hashable {
    public var type: FieldType
    public var required: Bool
    /// Allowed string values (`enum` in JSON).
    public var values: [String]?
    /// Filled on create when the op does not set the field (`default` in JSON).
    public var defaultValue: JSONValue?
    /// Smallest number, or fewest array items (`min` in JSON).
    public var minimum: Double?
    /// When set, the field is server-owned: only these roles may write it.
    public var writeRoles: [Role]?
    /// Values from highest to lowest; an overlapping write of a higher value wins.
    public var precedence: [String]?
    /// Allowed changes of value, from the current server value to the listed ones.
    public var transitions: [String: [String]]?

    public init(
        type: FieldType, required: Bool = false, values: [String]? = nil, defaultValue: JSONValue? = nil,
        minimum: Double? = nil, writeRoles: [Role]? = nil, precedence: [String]? = nil, transitions: [String: [String]]? = nil
    ) {
        self.type = type
        self.required = required
        self.values = values
        self.defaultValue = defaultValue
        self.minimum = minimum
        self.writeRoles = writeRoles
        self.precedence = precedence
        self.transitions = transitions
    }

    /// The rank of `value` in the precedence table (higher wins); `-1` for values the table does not list.
    public func precedenceRank(of value: JSONValue?) -> Int {
        guard let table = precedence, let text = value?.stringValue, let index = table.firstIndex(of: text) else { return -1 }
        return table.count - index
    }
}

/// The type of a field value.
public indirect enum FieldType: Sendable, Hashable {
    case string
    case integer
    case number
    case boolean
    /// A string holding a full date (`2026-11-03`) or an RFC 3339 timestamp.
    case date
    /// A string holding an attachment id.
    case attachment
    /// A JSON object; with `properties`, exactly that shape.
    case object(properties: [String: FieldSpec]?)
    /// A JSON array; with `items`, each element has that shape.
    case array(items: FieldSpec?)

    /// The name used in `schema.json`.
    public var name: String {
        switch self {
        case .string: "string"
        case .integer: "integer"
        case .number: "number"
        case .boolean: "boolean"
        case .date: "date"
        case .attachment: "attachment"
        case .object: "object"
        case .array: "array"
        }
    }
}

// MARK: - Codable

extension FieldSpec: Codable {
    private enum CodingKeys: String, CodingKey {
        case type, items, properties, required
        case values = "enum"
        case defaultValue = "default"
        case minimum = "min"
        case writeRoles, precedence, transitions
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            type: try Self.decodeType(container),
            required: try container.decodeIfPresent(Bool.self, forKey: .required) ?? false,
            values: try container.decodeIfPresent([String].self, forKey: .values),
            defaultValue: try container.decodeIfPresent(JSONValue.self, forKey: .defaultValue),
            minimum: try container.decodeIfPresent(Double.self, forKey: .minimum),
            writeRoles: try container.decodeIfPresent([Role].self, forKey: .writeRoles),
            precedence: try container.decodeIfPresent([String].self, forKey: .precedence),
            transitions: try container.decodeIfPresent([String: [String]].self, forKey: .transitions))
    }

    private static func decodeType(_ container: KeyedDecodingContainer<CodingKeys>) throws -> FieldType {
        let name = try container.decode(String.self, forKey: .type)
        switch name {
        case "string": return .string
        case "integer": return .integer
        case "number": return .number
        case "boolean": return .boolean
        case "date": return .date
        case "attachment": return .attachment
        case "object": return .object(properties: try container.decodeIfPresent([String: FieldSpec].self, forKey: .properties))
        case "array": return .array(items: try container.decodeIfPresent(FieldSpec.self, forKey: .items))
        default:
            throw DecodingError.dataCorruptedError(forKey: .type, in: container, debugDescription: "unknown field type \"\(name)\"")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(type.name, forKey: .type)
        switch type {
        case .object(let properties): try container.encodeIfPresent(properties, forKey: .properties)
        case .array(let items): try container.encodeIfPresent(items, forKey: .items)
        default: break
        }
        if required { try container.encode(true, forKey: .required) }
        try container.encodeIfPresent(values, forKey: .values)
        try container.encodeIfPresent(defaultValue, forKey: .defaultValue)
        try container.encodeIfPresent(minimum, forKey: .minimum)
        try container.encodeIfPresent(writeRoles, forKey: .writeRoles)
        try container.encodeIfPresent(precedence, forKey: .precedence)
        try container.encodeIfPresent(transitions, forKey: .transitions)
    }
}
