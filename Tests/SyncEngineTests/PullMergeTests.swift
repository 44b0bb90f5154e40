import Foundation
import SyncEngine
import SyncProtocol
import Testing

/// How a page merges the records a snapshot reads with the scope exits it reads: position
/// order, each record once at its latest change (PROTOCOL.md, Pull).
@Suite("Pull page merge")
struct PullMergeTests {
    static let ana = Principal(userId: "ana", role: .field, teamId: "north", deviceId: "d-ana")

    /// Answers fixed rows, as a database snapshot would in position order.
    struct FixedSnapshot: PullSnapshot, PullReader {
        var records: [PullRow]
        var exits: [PullRow]

        func snapshot<T>(_ body: (any PullSnapshot) throws -> T) throws -> T { try body(self) }
        func latestSequence() throws -> Int64 { 99 }
        func horizon() throws -> Int64 { 50 }

        func records(
            after position: PullPosition, below horizon: Int64, visible: [ScopeKey]?, personal: [String],
            skipTombstonesUpTo start: PullPosition?, limit: Int
        ) throws -> [PullRow] {
            Array(records.prefix(limit))
        }

        func exits(after position: PullPosition, below horizon: Int64, keys: [ScopeKey], personal: [String], limit: Int) throws -> [PullRow] {
            Array(exits.prefix(limit))
        }
    }

    static func row(_ id: String, xid: Int64, seq: Int64, type: String = "upsert") -> PullRow {
        PullRow(seq: seq, xid: xid, key: RecordKey(collection: "jobs", recordId: id), json: #"{"recordId":"\#(id)","type":"\#(type)"}"#)
    }

    func page(_ snapshot: FixedSnapshot, limit: Int = 500) throws -> PullPage {
        try PullService(reader: snapshot, cursors: PullCursorCodec(key: Data(repeating: 1, count: 32)))
            .page(for: Self.ana, cursor: nil, limit: limit, maximum: 500)
    }

    @Test("Without exits the records are the page, in the order read")
    func recordsOnly() throws {
        let records = [Self.row("a", xid: 10, seq: 3), Self.row("b", xid: 10, seq: 4), Self.row("c", xid: 12, seq: 1)]
        let page = try page(FixedSnapshot(records: records, exits: []))
        #expect(page.changes == records)
        #expect(!page.hasMore)
    }

    @Test("Exits fall between the records by position, and a record met twice comes once, at its latest")
    func exitsMerged() throws {
        let records = [Self.row("a", xid: 10, seq: 3), Self.row("b", xid: 14, seq: 9)]
        let exits = [Self.row("b", xid: 11, seq: 5, type: "remove"), Self.row("x", xid: 12, seq: 6, type: "remove")]
        let page = try page(FixedSnapshot(records: records, exits: exits))
        #expect(page.changes == [records[0], exits[1], records[1]])
    }

    @Test("A page cut by its limit keeps only what it took, and says there is more")
    func limitCuts() throws {
        let records = [Self.row("a", xid: 10, seq: 3), Self.row("b", xid: 14, seq: 9)]
        let exits = [Self.row("x", xid: 12, seq: 6, type: "remove")]
        let page = try page(FixedSnapshot(records: records, exits: exits), limit: 2)
        #expect(page.changes == [records[0], exits[0]])
        #expect(page.hasMore)
    }
}
