/// The back-office search: records, devices, users and orders whose id or name matches a
/// term, within what the viewer may see. What the search needs from the database.
public protocol SearchStore: Sendable {
    /// Up to `limit` hits of each kind in `kinds`, in one round trip. Ids (of records, devices
    /// and orders) and an order's customer id match when they start with the term; user
    /// names when they contain it; letter case never matters. For a team, only its members,
    /// their devices, and the records and orders in its scope or in its members'.
    func search(_ term: SearchTerm, kinds: Set<SearchHit.Kind>, teamId: String?, limit: Int) throws -> [SearchHit]
}

/// One thing the search found.
public struct SearchHit: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case record, device, user, order
    }

    public var kind: Kind
    /// The record's, device's, user's or order's id.
    public var id: String
    /// The record's collection; nil for other kinds.
    public var collection: String?
    /// A user's name, a device's user's name, an order's customer id.
    public var name: String?
    /// The team it belongs to, when it has one.
    public var teamId: String?
    /// A user's role, an order's status.
    public var detail: String?

    public init(kind: Kind, id: String, collection: String? = nil, name: String? = nil, teamId: String? = nil, detail: String? = nil) {
        (self.kind, self.id, self.collection, self.name, self.teamId, self.detail) = (kind, id, collection, name, teamId, detail)
    }
}
