public import SyncProtocol

/// Who performs an operation: the authenticated user, their role and team, and the device.
///
/// The HTTP layer builds one per request from the bearer token (for a supervisor it also loads
/// the team's member ids). Back-office actions use a stable pseudo device id such as
/// `web:<userId>` so field-conflict detection treats them as another device.
///
/// ```swift
/// let ana = Principal(userId: "u-1", role: .field, teamId: "t-1", deviceId: "dev-8842")
/// ana.visibleScopeKeys  // [user:u-1, team:t-1]
/// ```
public struct Principal: Sendable, Hashable, Codable {
    public var userId: String
    public var role: Role
    public var teamId: String?
    public var deviceId: String
    /// For supervisors: the user ids of their team's members.
    public var teamMemberIds: [String]

    public init(userId: String, role: Role, teamId: String? = nil, deviceId: String, teamMemberIds: [String] = []) {
        self.userId = userId
        self.role = role
        self.teamId = teamId
        self.deviceId = deviceId
        self.teamMemberIds = teamMemberIds
    }

    /// The scope keys this principal sees; `nil` means everything (dispatchers and admins).
    ///
    /// A field user sees `user:<own id>` and `team:<own team>`; a supervisor sees
    /// `team:<own team>` and `user:<member>` for each member.
    public var visibleScopeKeys: Set<ScopeKey>? {
        switch role {
        case .dispatcher, .admin:
            return nil
        case .field:
            return Set([.user(userId)] + (teamId.map { [.team($0)] } ?? []))
        case .supervisor:
            return Set(teamMemberIds.map(ScopeKey.user) + (teamId.map { [.team($0)] } ?? []))
        }
    }

    /// Whether a record with `keys` is visible to this principal.
    public func canSee(_ keys: some Sequence<ScopeKey>) -> Bool {
        guard let visible = visibleScopeKeys else { return true }
        return keys.contains(where: visible.contains)
    }

    /// Collections whose records are personal: a field user sees them only through
    /// `user:<own id>`, never through its team's key (a teammate's orders stay private).
    /// Supervisors, dispatchers and admins see them like any other record.
    public static let personalCollections: Set<String> = [OrderEvents.collection]

    /// The scope keys through which this principal sees records of `collection`; nil means
    /// every key.
    public func visibleScopeKeys(in collection: String) -> Set<ScopeKey>? {
        guard role == .field, Self.personalCollections.contains(collection) else { return visibleScopeKeys }
        return [.user(userId)]
    }

    /// Whether a record of `collection` with `keys` is visible to this principal.
    public func canSee(_ keys: some Sequence<ScopeKey>, in collection: String) -> Bool {
        guard let visible = visibleScopeKeys(in: collection) else { return true }
        return keys.contains(where: visible.contains)
    }

    /// The first scope key of `keys` outside this principal's own scope: a principal may
    /// place a record only under keys it sees itself (nil when all are inside).
    public func foreignScopeKey(among keys: some Sequence<ScopeKey>) -> ScopeKey? {
        guard let visible = visibleScopeKeys else { return nil }
        return keys.first { !visible.contains($0) }
    }

    /// The scope fields a created record gets when it carries neither `assigneeId` nor `teamId`.
    public var defaultScopeFields: [String: JSONValue] {
        var fields: [String: JSONValue] = [ScopeFields.assignee: .string(userId)]
        if let teamId { fields[ScopeFields.team] = .string(teamId) }
        return fields
    }
}
