public import Foundation
import SyncProtocol

/// Delta pulls (PROTOCOL.md, Pull; docs/decisions/0003 and 0004): the records whose latest
/// change is after the cursor and below the snapshot's horizon, merged with scope exits that
/// become `remove`, one page at a time, in (transaction, serverSeq) order.
///
/// ```swift
/// let pulls = PullService(reader: reader, cursors: PullCursorCodec(key: secret))
/// let page = try pulls.page(for: ana, cursor: nil, limit: nil, maximum: 500)
/// // page.changes, page.nextCursor, page.hasMore
/// ```
public struct PullService: Sendable {
    /// The default cap on a page's change JSON, in bytes.
    public static let defaultMaxPageBytes = 4 << 20

    let reader: any PullReader
    let cursors: PullCursorCodec
    let maxPageBytes: Int

    /// - Parameter maxPageBytes: a page stops before the change that would take its JSON past
    ///   this many bytes (it always carries at least one change, however large).
    public init(reader: any PullReader, cursors: PullCursorCodec, maxPageBytes: Int = PullService.defaultMaxPageBytes) {
        self.reader = reader
        self.cursors = cursors
        self.maxPageBytes = maxPageBytes
    }

    /// The page after `cursor` (an initial sync when nil), at most `limit` changes and never more
    /// than `maximum` (all of it when `limit` is nil), nor more than `maxPageBytes` of JSON.
    /// - Throws: `PullCursorCodec.Failure` for a cursor this server did not issue or that expired.
    public func page(for principal: Principal, cursor text: String?, limit: Int?, maximum: Int, now: Date = Date()) throws -> PullPage {
        let cursor = try text.map { try cursors.decode($0, now: now) }
        let limit = min(limit ?? maximum, maximum)
        let window = try reader.snapshot { snapshot in
            try Self.read(
                snapshot, for: principal, after: cursor?.position ?? .start, initialSyncStart: cursor?.initialSyncStart, limit: limit,
                maxBytes: maxPageBytes, startInitialSync: cursor == nil)
        }
        let next = PullCursor(position: window.position, initialSyncStart: window.initialSyncStart, issuedAt: now)
        return PullPage(
            changes: window.changes, nextCursor: cursors.encode(next), hasMore: window.hasMore, newServerSeq: window.newServerSeq,
            carriesHorizon: window.carriesHorizon)
    }

    /// Merges the records and exits between `position` and the snapshot's horizon, keeps the
    /// first `limit` in position order that fit in `maxBytes` (each record once, at its latest),
    /// and works out where the next page starts.
    static func read(
        _ snapshot: any PullSnapshot, for principal: Principal, after position: PullPosition, initialSyncStart: PullPosition?,
        limit: Int, maxBytes: Int = PullService.defaultMaxPageBytes, startInitialSync: Bool
    ) throws -> PullWindow {
        let newServerSeq = try snapshot.latestSequence()
        let horizon = try snapshot.horizon()
        let start = startInitialSync ? PullPosition.horizon(horizon) : initialSyncStart
        let visible = principal.visibleScopeKeys.map { $0.sorted() }
        let personal = principal.role == .field ? Principal.personalCollections.sorted() : []
        var rows = try snapshot.records(
            after: position, below: horizon, visible: visible, personal: personal, skipTombstonesUpTo: start, limit: limit + 1)
        var exits: [PullRow] = []
        if let keys = visible {
            exits = try snapshot.exits(
                after: max(position, start ?? .start), below: horizon, keys: keys, personal: personal, limit: limit + 1)
        }
        if !exits.isEmpty {
            rows += exits
            rows.sort { $0.position < $1.position }
        }
        let consumed = rows.prefix(pageLength(rows, limit: limit, maxBytes: maxBytes))
        let hasMore = rows.count > consumed.count
        var next = consumed.last?.position ?? position
        // Everything below the horizon was read: the next page starts there (an initial sync that
        // read everything continues from where it began, which is at or below it).
        if !hasMore { next = max(next, .horizon(horizon)) }
        return PullWindow(
            // Records come in order, each once: only exits can repeat a record or fall between.
            changes: exits.isEmpty ? Array(consumed) : latestOfEach(consumed), position: next,
            initialSyncStart: start.flatMap { next < $0 ? $0 : nil }, hasMore: hasMore, newServerSeq: newServerSeq,
            carriesHorizon: startInitialSync || !hasMore)
    }
}

extension PullService {
    /// The last row of each record among `rows` (in position order), still in position order.
    static func latestOfEach(_ rows: ArraySlice<PullRow>) -> [PullRow] {
        var latest: [RecordKey: Int] = [:]
        latest.reserveCapacity(rows.count)
        for (offset, row) in rows.enumerated() { latest[row.key] = offset }
        return rows.enumerated().compactMap { offset, row in latest[row.key] == offset ? row : nil }
    }

    /// How many of `rows` (in order) one page takes: at most `limit`, and no more than fit in
    /// `maxBytes`, but at least one so that a pull always moves on.
    static func pageLength(_ rows: [PullRow], limit: Int, maxBytes: Int) -> Int {
        var bytes = 0
        var count = 0
        for row in rows.prefix(limit) {
            bytes += row.byteCount
            if count > 0 && bytes > maxBytes { break }
            count += 1
        }
        return count
    }
}

/// What one pull read: its changes, and where the next page starts.
struct PullWindow {
    var changes: [PullRow]
    var position: PullPosition
    /// Kept in the next cursor while the initial sync has not passed its start.
    var initialSyncStart: PullPosition?
    var hasMore: Bool
    var newServerSeq: Int64
    /// Whether the next cursor holds this snapshot's horizon: as an initial sync's start, or as
    /// the position of a device that read everything below it.
    var carriesHorizon: Bool
}

/// One page of a pull.
public struct PullPage: Sendable {
    /// Each change as JSON text, in (transaction, `serverSeq`) order.
    public var changes: [PullRow]
    /// The signed cursor of the next page.
    public var nextCursor: String
    public var hasMore: Bool
    /// The highest sequence number issued when the page was read.
    public var newServerSeq: Int64
    /// Whether `nextCursor` holds the snapshot's horizon, a transaction id that may be above ids
    /// PostgreSQL issues again after a crash: such a cursor may be handed out only after a
    /// transaction begun after the read has committed durably (docs/decisions/0004, "Crashes").
    public var carriesHorizon: Bool
}
