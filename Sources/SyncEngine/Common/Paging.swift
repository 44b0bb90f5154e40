import Foundation

/// Where a keyset-paged back-office list continues: the sort key of the last row shown,
/// as the text values the list's query compares with.
///
/// A list never skips rows by number (`OFFSET`): the next page is "the rows after this
/// key" in the list's own order, so rows added or removed meanwhile neither repeat nor
/// vanish, and a deep page costs as little as the first.
/// ```swift
/// var page = try store.openConflicts(collection: nil, teamId: nil, after: nil, limit: 100)
/// while let next = page.next { page = try store.openConflicts(collection: nil, teamId: nil, after: next, limit: 100) }
/// ```
public struct PageCursor: Sendable, Hashable {
    public var values: [String]

    public init(_ values: [String]) {
        self.values = values
    }

    /// A cursor that does not fit the list it was given to: the wrong number of values, or
    /// a value that is not the timestamp or number its place in the sort key holds.
    public struct Invalid: Error, CustomStringConvertible {
        public init() {}

        public var description: String { "the page cursor does not fit this list" }
    }
}

/// One page of a keyset-paged list.
public struct PageOf<Row: Sendable>: Sendable {
    public var rows: [Row]
    /// Where the following page starts; nil on the last page.
    public var next: PageCursor?

    public init(rows: [Row], next: PageCursor?) {
        self.rows = rows
        self.next = next
    }

    /// The first `limit` of `fetched` (a query asks for one row more than a page holds, to
    /// know whether another page follows), with the key of the last one kept as `next`.
    public init<Fetched>(_ fetched: [Fetched], limit: Int, row: (Fetched) -> Row, key: (Fetched) -> PageCursor) {
        let kept = fetched.prefix(limit)
        rows = kept.map(row)
        next = fetched.count > limit ? kept.last.map(key) : nil
    }
}
