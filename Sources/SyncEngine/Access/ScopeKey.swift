public import SyncProtocol

/// A visibility key of a record: `user:<assigneeId>` or `team:<teamId>`.
///
/// A record carries the keys of whichever of `assigneeId` and `teamId` it has; a caller sees
/// a record when the two key sets meet (see ``Principal/visibleScopeKeys``). Storage indexes
/// records by these strings (e.g. a `text[]` column with a GIN index).
public struct ScopeKey: RawRepresentable, Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// Whose records a key names: one user's, or a whole team's.
    public enum Kind: String, Sendable {
        case user, team

        /// The text every key of this kind starts with.
        public var prefix: String { rawValue + ":" }
    }

    /// `user:<id>`.
    public static func user(_ id: String) -> ScopeKey { ScopeKey(rawValue: Kind.user.prefix + id) }

    /// `team:<id>`.
    public static func team(_ id: String) -> ScopeKey { ScopeKey(rawValue: Kind.team.prefix + id) }

    /// The key's kind; nil for text that is neither a user's nor a team's key.
    public var kind: Kind? {
        if rawValue.hasPrefix(Kind.user.prefix) { return .user }
        return rawValue.hasPrefix(Kind.team.prefix) ? .team : nil
    }

    /// The keys of a record payload, sorted: from its `assigneeId` and `teamId` strings.
    public static func keys(of payload: [String: JSONValue]) -> [ScopeKey] {
        var keys: [ScopeKey] = []
        if let assignee = payload[ScopeFields.assignee]?.stringValue { keys.append(.user(assignee)) }
        if let team = payload[ScopeFields.team]?.stringValue { keys.append(.team(team)) }
        return keys.sorted()
    }

    public static func < (lhs: ScopeKey, rhs: ScopeKey) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { rawValue }
}

/// The names of the common fields every collection has and scopes derive from.
public enum ScopeFields {
    public static let assignee = "assigneeId"
    public static let team = "teamId"
}
