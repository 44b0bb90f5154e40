import SyncProtocol

/// Builds one pull page from change log rows, as PROTOCOL "Pull" defines it.
///
/// Storage selects the rows after the cursor that the caller may be concerned with
/// (`scopeKeysBefore` or `scopeKeysAfter` meet the caller's keys; every row for dispatchers
/// and admins), ascending `seq`, at most `limit + 1` of them, plus the current state of their
/// records. For an initial sync (no cursor) it may instead feed one row per record from the
/// records table (`seq` = record `serverSeq`, no keys before).
///
/// ```swift
/// let page = PullAssembler.page(rows: rows, records: current, for: principal, limit: 500, initial: cursor == nil)
/// // respond with page.changes, cursor(page.lastSeq ?? cursorSeq), page.hasMore
/// ```
///
/// Rules: each record appears at most once per page, in its latest state, in ascending
/// `serverSeq`. A row is emitted only when it is the record's latest change (a later change
/// has its own row and is emitted there, so nothing repeats). A row whose keys after the
/// change are hidden from the caller but were visible before it becomes `remove` at the
/// row's seq. The initial sync sends no `delete` or `remove`.
public enum PullAssembler {
    /// One page of changes.
    public struct Page: Hashable, Sendable {
        public var changes: [Change]
        /// The highest row seq consumed (the next cursor position); `nil` when no row was consumed.
        public var lastSeq: Int64?
        public var hasMore: Bool
    }

    /// - Parameters:
    ///   - rows: change log rows after the cursor, ascending `seq`, at most `limit + 1`.
    ///   - records: the current state of the records the rows name (tombstones included).
    ///   - principal: the caller, whose visible scope keys decide `upsert` versus `remove`.
    ///   - limit: the page size, already clamped to the maximum.
    ///   - initial: `true` for a sync without cursor.
    public static func page(
        rows: [ChangeLogEntry], records: [RecordKey: StoredRecord], for principal: Principal, limit: Int, initial: Bool
    ) -> Page {
        let consumed = rows.prefix(limit)
        var latest: [RecordKey: Change] = [:]
        for row in consumed {
            if let change = change(for: row, record: records[row.key], principal: principal, initial: initial) {
                latest[row.key] = change
            }
        }
        return Page(
            changes: latest.values.sorted { $0.serverSeq < $1.serverSeq }, lastSeq: consumed.last?.seq, hasMore: rows.count > limit)
    }

    /// What one row means to the caller, or `nil` when it means nothing (yet).
    private static func change(for row: ChangeLogEntry, record: StoredRecord?, principal: Principal, initial: Bool) -> Change? {
        guard let record else { return nil }
        if principal.canSee(row.scopeKeysAfter) {
            guard record.serverSeq == row.seq, principal.canSee(record.scopeKeys) else { return nil }
            return record.isDeleted && initial ? nil : record.pullChange()
        }
        guard !initial, principal.canSee(row.scopeKeysBefore) else { return nil }
        return record.removal(at: row.seq)
    }
}
