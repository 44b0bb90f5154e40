public import SyncProtocol

/// Conflict entries as people read them: what the device API's list and the back-office's
/// review need from the database. Entries are opened and resolved by the engine's writes.
public protocol ConflictStore: Sendable {
    /// The entries `principal` may see, oldest first, at most `limit`: a field user its own
    /// ops' conflicts, a supervisor its team's, dispatchers and admins all.
    func list(for principal: Principal, state: ConflictState?, limit: Int) throws -> [ConflictEntry]

    /// One page of open conflicts for review, oldest first, optionally only of one collection
    /// and one team: the `limit` conflicts after `after`, with the counts the filters show.
    /// - Throws: `PageCursor.Invalid` when `after` is not a cursor of this list.
    func openConflicts(collection: String?, teamId: String?, after: PageCursor?, limit: Int) throws -> OpenConflicts

    /// One conflict, open or resolved, with its author's and resolver's names; nil when unknown.
    func conflict(id: String) throws -> NamedConflict?
}

extension ConflictStore {
    /// The entries `principal` may see, at most 500 (`GET /v1/conflicts`).
    public func list(for principal: Principal, state: ConflictState?) throws -> [ConflictEntry] {
        try list(for: principal, state: state, limit: 500)
    }
}

/// A conflict entry with the names the back-office shows next to it.
public struct NamedConflict: Sendable {
    public var entry: ConflictEntry
    /// The author's user name; nil when the account no longer exists.
    public var authorName: String?
    /// The record's team (its `team:` scope key), else the author's team.
    public var teamId: String?
    /// The user name of whoever resolved it, once resolved.
    public var resolverName: String?

    public init(entry: ConflictEntry, authorName: String?, teamId: String?, resolverName: String? = nil) {
        self.entry = entry
        self.authorName = authorName
        self.teamId = teamId
        self.resolverName = resolverName
    }
}

/// One page of the open conflicts that pass the review filters, with counts of every open
/// conflict by collection and team for the filter controls.
public struct OpenConflicts: Sendable {
    /// The page. Its entries come without the two full revisions (`deviceRevision` and
    /// `serverRevision` are empty): the list never shows them. `conflict(id:)` reads one whole.
    public var conflicts: [NamedConflict]
    /// Where the following page starts; nil on the last page.
    public var next: PageCursor?
    /// Every open conflict that passes the filter, on this page or another.
    public var matching: Int
    /// Open conflicts per collection, among those of the filtered team.
    public var collectionCounts: [(collection: String, count: Int)]
    /// Teams that have open conflicts, sorted.
    public var teams: [String]
    /// Every open conflict, unfiltered.
    public var totalOpen: Int

    public init(
        conflicts: [NamedConflict], next: PageCursor?, matching: Int, collectionCounts: [(collection: String, count: Int)], teams: [String],
        totalOpen: Int
    ) {
        self.conflicts = conflicts
        self.next = next
        self.matching = matching
        self.collectionCounts = collectionCounts
        self.teams = teams
        self.totalOpen = totalOpen
    }
}
