import Foundation
import SyncEngine
import Testing

@Suite("Resuming a live feed after Last-Event-ID")
struct ResumePlanTests {
    private let now = Date(timeIntervalSince1970: 1_800_000_000)
    private var cutoff: Date { now.addingTimeInterval(-300) }

    private func decide(_ lastEventId: Int64, issued: Int64, anchored: Bool, next: (Int64, TimeInterval)?) -> ResumePlan {
        let position = OutboxPosition(
            issuedThrough: issued, anchored: anchored, next: next.map { ($0.0, now.addingTimeInterval(-$0.1)) })
        return ResumePlan.decide(lastEventId: lastEventId, position: position, cutoff: cutoff)
    }

    private func isReset(_ plan: ResumePlan) -> Bool {
        if case .reset = plan { return true }
        return false
    }

    @Test("Missed events inside the window are replayed")
    func replayInsideWindow() {
        #expect(decide(40, issued: 45, anchored: true, next: (41, 10)) == .replay(after: 40))
        #expect(decide(40, issued: 45, anchored: true, next: (43, 299)) == .replay(after: 40), "ids lost to rollbacks are gaps, not losses")
    }

    @Test("The oldest missed event older than five minutes means reset")
    func resetBeyondWindow() {
        #expect(isReset(decide(40, issued: 45, anchored: true, next: (41, 301))))
    }

    @Test("A client that is up to date resumes with nothing to replay, even when old rows were deleted")
    func upToDate() {
        #expect(decide(45, issued: 45, anchored: true, next: nil) == .replay(after: 45))
        #expect(decide(45, issued: 45, anchored: false, next: nil) == .replay(after: 45))
        #expect(decide(44, issued: 45, anchored: true, next: nil) == .replay(after: 44), "45 was rolled back or is not committed yet")
    }

    @Test("When the client's position was deleted by retention, missed rows may be gone too: reset")
    func deletedByRetention() {
        #expect(isReset(decide(40, issued: 900, anchored: false, next: (850, 10))))
        #expect(isReset(decide(40, issued: 900, anchored: false, next: nil)))
    }

    @Test("An id the server never issued means reset (another database, or a restore)")
    func neverIssued() {
        #expect(isReset(decide(46, issued: 45, anchored: true, next: nil)))
    }

    @Test("Last-Event-ID parses as live, an id, or unrecognized")
    func parsing() {
        #expect(EventResume(header: nil) == .live)
        #expect(EventResume(header: "  ") == .live)
        #expect(EventResume(header: "42") == .after(42))
        #expect(EventResume(header: " 0 ") == .after(0))
        #expect(EventResume(header: "-3") == .unrecognized)
        #expect(EventResume(header: "abc") == .unrecognized)
        #expect(EventResume(header: "99999999999999999999") == .unrecognized)
    }
}
