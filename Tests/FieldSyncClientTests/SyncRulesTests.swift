import Foundation
import SyncProtocol
import Testing

@testable import FieldSyncClient

/// The SDK's pure rules, without a server or a database: backoff, the record overlay, the
/// server clock and the status wording.
@Suite("SDK rules")
struct SyncRulesTests {
    @Test("Backoff grows by three from 5 s to a 5 min ceiling; jitter only shortens; Retry-After is a floor")
    func backoff() {
        let backoff = Backoff()
        #expect((1...7).map { backoff.delay(afterFailures: $0, random: 0).seconds } == [5, 15, 45, 135, 300, 300, 300])
        #expect(backoff.delay(afterFailures: 1, random: 0.999).seconds > 4 && backoff.delay(afterFailures: 1, random: 1).seconds == 4)
        #expect(backoff.delay(afterFailures: Int.max, random: 0).seconds == 300)
        #expect(backoff.delay(retryAfter: .seconds(120), random: 0).seconds == 120)
        #expect(backoff.delay(retryAfter: .seconds(120), random: 1).seconds == 144)
    }

    @Test("A record's view is its server fields with pending ops applied in order; a delete hides it")
    func overlay() {
        func op(_ type: OpType, _ fields: [String: JSONValue] = [:], seq: Int64) -> PushOp {
            PushOp(
                opId: "op-\(seq)", clientSeq: seq, collection: "jobs", recordId: "job-1", type: type, occurredAt: "2026-11-03T08:00:00Z",
                fields: fields.mapValues { FieldChange(new: $0) })
        }
        let server: [String: JSONValue] = ["title": "Boiler", "status": "in_progress"]
        #expect(RecordOverlay.view(server: server, pending: []) == server)
        #expect(
            RecordOverlay.view(server: server, pending: [op(.update, ["status": "complete"], seq: 1), op(.update, ["notes": "x"], seq: 2)])
                == ["title": "Boiler", "status": "complete", "notes": "x"])
        #expect(RecordOverlay.view(server: nil, pending: [op(.update, ["status": "complete"], seq: 1)]) == nil)
        #expect(RecordOverlay.view(server: nil, pending: [op(.create, ["title": "New"], seq: 1)]) == ["title": "New"])
        #expect(RecordOverlay.view(server: server, pending: [op(.delete, seq: 1)]) == nil)
        #expect(RecordOverlay.view(server: server, pending: [op(.delete, seq: 1), op(.create, ["title": "Again"], seq: 2)]) == ["title": "Again"])
    }

    @Test("The server clock reads HTTP dates and corrects a device clock that is off")
    func serverClock() {
        let parsed = ServerClock.parseHTTPDate("Tue, 03 Nov 2026 08:12:00 GMT")
        #expect(parsed.map(RFC3339.string(from:)) == "2026-11-03T08:12:00Z")
        for bad in ["", "Tue, 03 Nov 2026 08:12:00 CET", "Tue, 03 Foo 2026 08:12:00 GMT", "Tue, 03 Nov 2026 08:12 GMT"] {
            #expect(ServerClock.parseHTTPDate(bad) == nil, "\(bad)")
        }
        let deviceNow = Date(timeIntervalSince1970: 1_800_000_000)
        let clock = ServerClock(deviceNow: { deviceNow }, offset: 0)
        clock.observe(dateHeader: "Fri, 15 Jan 2027 09:00:00 GMT")
        #expect(clock.now() == Date(timeIntervalSince1970: 1_800_003_600))
        clock.observe(dateHeader: "garbage")
        #expect(clock.currentOffset == 3_600)
    }

    @Test("The status headline follows its precedence and speaks in sentences")
    func statusWording() {
        var inputs = StatusCenter.Inputs()
        inputs.session = .active
        inputs.facts = StoreFacts(pendingChanges: 2, pendingPhotos: 1, issues: 0)
        #expect(StatusCenter.status(for: inputs).description == "3 changes pending")
        inputs.networkAvailable = false
        #expect(StatusCenter.status(for: inputs).description == "Waiting for network. 3 pending")
        inputs.activity = .syncing(SyncProgress(changesSent: 1, changesTotal: 2, bytesSent: 524_288, bytesTotal: 2_097_152))
        #expect(StatusCenter.status(for: inputs).description == "Syncing 2 changes… (0.5 of 2.0 MB)")
        inputs.upgradeRequired = true
        #expect(StatusCenter.status(for: inputs).state == .needsAttention(.updateRequired(minimumVersion: nil)))
        inputs = StatusCenter.Inputs()
        inputs.session = .active
        inputs.facts.issues = 2
        #expect(StatusCenter.status(for: inputs).description == "2 changes need your review")
        inputs.facts.issues = 0
        #expect(StatusCenter.status(for: inputs).description == "Not synced yet")
        inputs.lastSyncedAt = Date()
        #expect(StatusCenter.status(for: inputs).description == "All changes synced")
        inputs.session = .expired
        #expect(StatusCenter.status(for: inputs).description == "Sign in again to sync.")
    }

    @Test("A waiting loop takes only the signals it accepts; others wait for it")
    func loopSignals() async {
        let signals = LoopSignals()
        signals.signal(.localChange)
        let waiter = Task { await signals.next(accepting: [.manual]) }
        try? await Task.sleep(for: .milliseconds(50))
        signals.signal(.manual)
        #expect(await waiter.value == .manual)
        #expect(await signals.next(accepting: [.localChange, .manual]) == .localChange)
        let cancelled = Task { await signals.next(accepting: [.manual]) }
        cancelled.cancel()
        #expect(await cancelled.value == nil)
    }
}
