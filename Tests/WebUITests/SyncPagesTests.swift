import SyncProtocol
import Testing

@testable import WebUI

@Suite("Conflict comparison, journal wording and exports")
struct SyncPagesTests {
    static let entry = ConflictEntry(
        id: "c-1", collection: "reports", recordId: "rep-1", opId: "o-1", deviceId: "d-1", authorId: "u-1", state: .open,
        openedAt: "2026-06-15T09:00:00Z",
        fields: [FieldConflict(field: "answers", clientOld: ["q1": "yes"], clientNew: ["q1": "maybe"], serverCurrent: ["q1": "no"], serverSeq: 4)],
        deviceRevision: ["assignmentId": "as-1", "answers": ["q1": "maybe"], "photos": ["att-9"]],
        serverRevision: ["assignmentId": "as-1", "answers": ["q1": "no"]])

    @Test("Rows list both-changed fields first, then device-only changes, then equal fields")
    func rows() {
        let rows = ConflictComparison(Self.entry).rows
        #expect(rows.map(\.field) == ["answers", "photos", "assignmentId"])
        #expect(rows.map(\.changed) == [true, true, false] && rows.map(\.conflicting) == [true, false, false])
        #expect(rows[0].server == "q1: no" && rows[0].device == "q1: maybe" && rows[1].server == "—" && rows[1].device == "att-9")
    }

    @Test("A per-field form sends only the device values chosen; all-server becomes the server choice")
    func mergeRequests() throws {
        let comparison = ConflictComparison(Self.entry)
        let merged = try comparison.request(from: FormData(encoded: "choice=merge&pick.answers=device&pick.photos=server")).get()
        #expect(merged == ResolveRequest(choice: .merge, fields: ["answers": ["q1": "maybe"]]))
        let kept = try comparison.request(from: FormData(encoded: "choice=merge&pick.answers=server&pick.photos=server")).get()
        #expect(kept == ResolveRequest(choice: .server))
        #expect(throws: ConflictComparison.Problem.self) { try comparison.request(from: FormData(encoded: "choice=merge&pick.answers=device")).get() }
        #expect(throws: ConflictComparison.Problem.self) { try comparison.request(from: FormData(encoded: "choice=delete")).get() }
    }

    @Test("CSV cells are quoted when needed, quotes doubled, and formula starts neutralised")
    func csvCells() {
        #expect(JournalExport.cell("plain") == "plain")
        #expect(JournalExport.cell("a,b") == "\"a,b\"")
        #expect(JournalExport.cell("say \"hi\"") == "\"say \"\"hi\"\"\"")
        #expect(JournalExport.cell("two\nlines") == "\"two\nlines\"")
        #expect(JournalExport.cell("=SUM(A1)") == "'=SUM(A1)")
        #expect(JournalExport.cell("@cmd") == "'@cmd")
        #expect(JournalExport.cell("-42") == "-42", "a negative number stays a number")
        #expect(JournalExport.fileName("dev/1\"x", "csv") == "journal-dev_1_x.csv")
    }

    @Test("Every outcome reads in plain words, and codes come with an explanation")
    func wording() {
        #expect(OpWording.status(.conflict, code: .reviewRequired).label == "Needs your review")
        #expect(OpWording.status(.deferred, code: .awaitingPredecessor).label == "Waiting")
        #expect(OpWording.explanation(nil) == nil)
        for code in [ErrorCode.reviewRequired, .fieldConflict, .recordNotFound, .outOfScope, .dependencyPending] {
            let text = OpWording.explanation(code) ?? ""
            #expect(!text.isEmpty && !text.contains(code.rawValue), "\(code)")
        }
    }
}
