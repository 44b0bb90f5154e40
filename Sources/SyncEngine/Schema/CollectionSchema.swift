public import SyncProtocol

/// How a collection settles overlapping field writes (PROTOCOL rule 8).
public enum ConflictPolicy: String, Codable, Sendable, Hashable {
    /// Non-overlapping fields merge; overlapping ones follow precedence tables, else the server wins.
    case fieldMerge = "field-merge"
    /// Nothing of a conflicting op applies; a human reviews both revisions.
    case manual
}

/// A record is locked (no more updates or deletes) while `field` holds one of `values`.
public struct LockRule: Codable, Sendable, Hashable {
    public var field: String
    public var values: [String]

    public init(field: String, values: [String]) {
        self.field = field
        self.values = values
    }

    /// Whether `payload` matches the rule.
    public func matches(_ payload: [String: JSONValue]) -> Bool {
        guard let value = payload[field]?.stringValue else { return false }
        return values.contains(value)
    }
}

/// The declaration of one collection.
///
/// JSON keys: `fields`, `writeRoles` (default: field, dispatcher, admin — supervisors never write),
/// `policy` (`field-merge` or `manual`), `lock`, `since` (the schema version that introduced the
/// collection, default 1) and `migrations` (``MigrationStep``s).
public struct CollectionSchema: Sendable, Hashable {
    /// Every field, including the common `assigneeId` and `teamId`.
    public var fields: [String: FieldSpec] {
        didSet { derive() }
    }
    /// Roles that may write records of this collection.
    public var writeRoles: [Role]
    public var policy: ConflictPolicy
    public var lock: LockRule?
    public var since: Int
    public var migrations: [MigrationStep]
    /// The `default` of every field that has one (kept in step with `fields`: used on every create).
    public private(set) var defaults: [String: JSONValue] = [:]
    /// The names of the fields required on create, sorted.
    public private(set) var requiredFields: [String] = []

    /// The roles allowed to write when a collection does not say.
    public static let defaultWriteRoles: [Role] = [.field, .dispatcher, .admin]

    public init(
        fields: [String: FieldSpec], writeRoles: [Role] = defaultWriteRoles, policy: ConflictPolicy = .fieldMerge,
        lock: LockRule? = nil, since: Int = 1, migrations: [MigrationStep] = []
    ) {
        self.fields = fields
        self.writeRoles = writeRoles
        self.policy = policy
        self.lock = lock
        self.since = since
        self.migrations = migrations
        derive()
    }

    private mutating func derive() {
        defaults = fields.compactMapValues(\.defaultValue)
        requiredFields = fields.filter(\.value.required).keys.sorted()
    }

    /// Whether `role` may write `field` (`nil`: the collection as a whole, e.g. for a delete).
    public func canWrite(_ field: String?, role: Role) -> Bool {
        guard writeRoles.contains(role) else { return false }
        guard let field, let owners = fields[field]?.writeRoles else { return true }
        return owners.contains(role)
    }
}

extension CollectionSchema: Codable {
    // The derived `defaults` and `requiredFields` are not part of the document.
    private enum CodingKeys: String, CodingKey {
        case fields, writeRoles, policy, lock, since, migrations
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            fields: try container.decode([String: FieldSpec].self, forKey: .fields),
            writeRoles: try container.decodeIfPresent([Role].self, forKey: .writeRoles) ?? Self.defaultWriteRoles,
            policy: try container.decodeIfPresent(ConflictPolicy.self, forKey: .policy) ?? .fieldMerge,
            lock: try container.decodeIfPresent(LockRule.self, forKey: .lock),
            since: try container.decodeIfPresent(Int.self, forKey: .since) ?? 1,
            migrations: try container.decodeIfPresent([MigrationStep].self, forKey: .migrations) ?? [])
    }
}
