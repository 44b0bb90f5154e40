public import SyncProtocol

/// The payload changes between schema version `from` and `from + 1` for one collection.
///
/// JSON: `{"from": 2, "to": 3, "actions": [{"rename": {"from": "laborMinutes", "to": "labor_minutes"}}]}`.
public struct MigrationStep: Codable, Sendable, Hashable {
    public var from: Int
    public var to: Int
    public var actions: [MigrationAction]

    public init(from: Int, to: Int, actions: [MigrationAction]) {
        self.from = from
        self.to = to
        self.actions = actions
    }
}

/// One payload rewrite, written in JSON as a single-key object named after the action.
public enum MigrationAction: Sendable, Hashable {
    /// `{"rename": {"from": "a", "to": "b"}}`: the field is now called `to`.
    case rename(from: String, to: String)
    /// `{"addDefault": {"field": "f", "value": v}}`: a create that lacks `f` gets `v`.
    case addDefault(field: String, value: JSONValue)
    /// `{"mapValues": {"field": "f", "values": {"old": "new"}}}`: string values are translated.
    case mapValues(field: String, values: [String: JSONValue])
    /// `{"drop": {"field": "f"}}`: the field no longer exists and is discarded.
    case drop(field: String)

    /// Rewrites the fields of one op of type `type`.
    func apply(to fields: inout [String: FieldChange], type: OpType) {
        switch self {
        case .rename(let old, let new):
            guard let change = fields.removeValue(forKey: old) else { return }
            if fields[new] == nil { fields[new] = change }
        case .addDefault(let field, let value):
            if type == .create, fields[field] == nil { fields[field] = FieldChange(new: value) }
        case .mapValues(let field, let table):
            guard let change = fields[field] else { return }
            fields[field] = FieldChange(old: change.old.map { Self.map($0, table) }, new: Self.map(change.new, table))
        case .drop(let field):
            fields[field] = nil
        }
    }

    private static func map(_ value: JSONValue, _ table: [String: JSONValue]) -> JSONValue {
        value.stringValue.flatMap { table[$0] } ?? value
    }
}

extension MigrationAction: Codable {
    private enum Action: String, CodingKey { case rename, addDefault, mapValues, drop }
    private enum Keys: String, CodingKey { case from, to, field, value, values }

    public init(from decoder: any Decoder) throws {
        let outer = try decoder.container(keyedBy: Action.self)
        guard outer.allKeys.count == 1, let action = outer.allKeys.first else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "a migration action is one of rename, addDefault, mapValues, drop"))
        }
        let inner = try outer.nestedContainer(keyedBy: Keys.self, forKey: action)
        switch action {
        case .rename: self = .rename(from: try inner.decode(String.self, forKey: .from), to: try inner.decode(String.self, forKey: .to))
        case .addDefault:
            self = .addDefault(field: try inner.decode(String.self, forKey: .field), value: try inner.decode(JSONValue.self, forKey: .value))
        case .mapValues:
            self = .mapValues(
                field: try inner.decode(String.self, forKey: .field), values: try inner.decode([String: JSONValue].self, forKey: .values))
        case .drop: self = .drop(field: try inner.decode(String.self, forKey: .field))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var outer = encoder.container(keyedBy: Action.self)
        switch self {
        case .rename(let from, let to):
            var inner = outer.nestedContainer(keyedBy: Keys.self, forKey: .rename)
            try inner.encode(from, forKey: .from)
            try inner.encode(to, forKey: .to)
        case .addDefault(let field, let value):
            var inner = outer.nestedContainer(keyedBy: Keys.self, forKey: .addDefault)
            try inner.encode(field, forKey: .field)
            try inner.encode(value, forKey: .value)
        case .mapValues(let field, let values):
            var inner = outer.nestedContainer(keyedBy: Keys.self, forKey: .mapValues)
            try inner.encode(field, forKey: .field)
            try inner.encode(values, forKey: .values)
        case .drop(let field):
            var inner = outer.nestedContainer(keyedBy: Keys.self, forKey: .drop)
            try inner.encode(field, forKey: .field)
        }
    }
}
