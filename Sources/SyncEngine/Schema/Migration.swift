public import SyncProtocol

/// The payload changes between schema version `from` and `from + 1` for one collection.
///
/// JSON: `{"from": 2, "to": 3, "actions": [{"rename": {"from": "laborMinutes", "to": "labor_minutes"}}]}`.
/// `within` (optional) rewrites the members of object fields, after `actions`, with the same
/// actions: `"within": {"answers": [{"rename": {"from": "temp", "to": "temperatureC"}}]}` renames
/// a member of every report's `answers`.
///
/// The same steps rewrite an op's fields on accept and a stored record's payload when it is
/// upgraded (``Schema/upgraded(_:)``); only what a value is differs, see ``apply(to:complete:make:map:)``.
public struct MigrationStep: Codable, Sendable, Hashable {
    public var from: Int
    public var to: Int
    public var actions: [MigrationAction]
    /// Actions on the members of an object field, by field name (after `actions` ran).
    public var within: [String: [MigrationAction]]

    public init(from: Int, to: Int, actions: [MigrationAction], within: [String: [MigrationAction]] = [:]) {
        self.from = from
        self.to = to
        self.actions = actions
        self.within = within
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            from: try container.decode(Int.self, forKey: .from), to: try container.decode(Int.self, forKey: .to),
            actions: try container.decodeIfPresent([MigrationAction].self, forKey: .actions) ?? [],
            within: try container.decodeIfPresent([String: [MigrationAction]].self, forKey: .within) ?? [:])
    }

    private enum CodingKeys: String, CodingKey { case from, to, actions, within }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(from, forKey: .from)
        try container.encode(to, forKey: .to)
        try container.encode(actions, forKey: .actions)
        if !within.isEmpty { try container.encode(within, forKey: .within) }
    }

    /// Rewrites named values: an op's fields, a stored record's fields, or an object's members.
    ///
    /// - Parameters:
    ///   - complete: whether `values` hold every field (a create, a stored record, an object):
    ///     only then does `addDefault` add what is missing.
    ///   - make: the value for a default.
    ///   - map: rewrites the JSON inside a value (`mapValues` and `within`).
    func apply<Value>(
        to values: inout [String: Value], complete: Bool, make: (JSONValue) -> Value,
        map: (Value, (JSONValue) -> JSONValue) -> Value
    ) {
        for action in actions { action.apply(to: &values, complete: complete, make: make, map: map) }
        for (field, members) in within.sorted(by: { $0.key < $1.key }) {
            guard let value = values[field] else { continue }
            values[field] = map(value) { json in
                guard var object = json.objectValue else { return json }
                for action in members { action.apply(to: &object, complete: true, make: { $0 }, map: { $1($0) }) }
                return .object(object)
            }
        }
    }
}

/// One payload rewrite, written in JSON as a single-key object named after the action.
public enum MigrationAction: Sendable, Hashable {
    /// `{"rename": {"from": "a", "to": "b"}}`: the field is now called `to`.
    case rename(from: String, to: String)
    /// `{"addDefault": {"field": "f", "value": v}}`: a create (or a stored record) that lacks `f` gets `v`.
    case addDefault(field: String, value: JSONValue)
    /// `{"mapValues": {"field": "f", "values": {"old": "new"}}}`: string values are translated.
    case mapValues(field: String, values: [String: JSONValue])
    /// `{"drop": {"field": "f"}}`: the field no longer exists and is discarded.
    case drop(field: String)

    /// Rewrites `values` (see ``MigrationStep/apply(to:complete:make:map:)``).
    func apply<Value>(
        to values: inout [String: Value], complete: Bool, make: (JSONValue) -> Value, map: (Value, (JSONValue) -> JSONValue) -> Value
    ) {
        switch self {
        case .rename(let old, let new):
            guard let value = values.removeValue(forKey: old) else { return }
            if values[new] == nil { values[new] = value }
        case .addDefault(let field, let value):
            if complete, values[field] == nil { values[field] = make(value) }
        case .mapValues(let field, let table):
            guard let value = values[field] else { return }
            values[field] = map(value) { Self.map($0, table) }
        case .drop(let field):
            values[field] = nil
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
