import App
import FieldSyncClient
import Foundation
import SyncEngine
import SyncProtocol
import Testing

/// Backoff, Retry-After, version gating: the sync loop against a server and network that
/// say no, with the device's sleep recorded.
@Suite("Network behaviour")
struct NetworkBehaviourTests {
    @Test("Network errors back off 5 s, 15 s, 45 s, 2¼ min, 5 min with jitter, stop at the ceiling, and resume when the network returns")
    func backoffAndCeiling() async throws {
        let bed = try await SDKTestBed.start()
        defer { bed.finish() }
        let network = FaultyTransport()
        let clock = TestClock()
        let ana = try await bed.device(transport: network, clock: clock) { $0.maxConsecutiveFailures = 7 }
        try await ana.client.create("jobs", id: "job-1", ["title": "Boiler"])
        network.set(.networkDown)
        let loop = Task { await ana.client.run() }
        defer { loop.cancel() }

        let stopped = try await ana.client.waitForStatus { $0.retriesExhausted }

        // random() is 0.5 in tests: each delay loses half of the 20 % jitter.
        #expect(clock.sleeps.map(\.seconds) == [4.5, 13.5, 40.5, 121.5, 270, 270])
        #expect(stopped.description == "Sync stopped after 7 failed attempts. Try again. Your 1 pending change is kept.")
        ana.client.networkChanged(isAvailable: false)
        #expect(ana.client.status.state == .offline && ana.client.status.description == "Waiting for network. 1 pending")
        network.set(nil)
        ana.client.networkChanged(isAvailable: true)
        try await ana.client.waitForStatus { $0.isSynced }
        #expect(try bed.serverRecord("jobs", "job-1") != nil)
    }

    @Test("503 MAINTENANCE: the loop waits the server's Retry-After, not its own backoff, and syncs when maintenance ends")
    func maintenanceRetryAfter() async throws {
        let bed = try await SDKTestBed.start()
        defer { bed.finish() }
        let clock = TestClock(realSleepCap: .milliseconds(150))
        let ana = try await bed.device(clock: clock)
        try await ana.client.create("jobs", id: "job-1", ["title": "Boiler"])
        try bed.updateSettings {
            $0.maintenanceMode = true
            $0.maintenanceRetryAfterSeconds = 120
        }
        let loop = Task { await ana.client.run() }
        defer { loop.cancel() }

        let waiting = try await ana.client.waitForStatus { if case .waitingForNetwork = $0.state { true } else { false } }
        #expect(waiting.description == "Waiting for network. 1 pending")
        try bed.updateSettings { $0.maintenanceMode = false }
        try await ana.client.waitForStatus { $0.isSynced }

        let waits = clock.sleeps.map(\.seconds)
        #expect(!waits.isEmpty && waits.allSatisfy { $0 >= 120 && $0 <= 144 })
    }

    @Test("429 RATE_LIMITED: the loop waits at least the server's Retry-After before the next call")
    func rateLimited() async throws {
        let clock = TestClock(realSleepCap: .seconds(3))
        // The server's rate counts time only as the device waits, so its requests come "at once"
        // however slowly a loaded machine runs them, and only its retries earn new tokens.
        let bed = try await SDKTestBed.start { $0.rateLimitClock = { clock.now.timeIntervalSince1970 } }
        defer { bed.finish() }
        let ana = try await bed.device(clock: clock)
        try bed.updateSettings {
            $0.deviceRequestsPerSecond = 1
            $0.deviceRequestBurst = 1
        }
        try await ana.client.create("jobs", id: "job-1", ["title": "Boiler"])
        let loop = Task { await ana.client.run() }
        defer { loop.cancel() }

        try await ana.client.waitForStatus(timeout: .seconds(30)) { $0.isSynced }

        let retries = clock.sleeps.map(\.seconds)
        #expect(!retries.isEmpty && retries.allSatisfy { $0 >= 1 && $0 < 5 })
        #expect(try bed.serverRecord("jobs", "job-1") != nil)
    }

    @Test("426 stops syncing and asks for an update; edits are still saved; the updated app syncs them")
    func upgradeRequired() async throws {
        let bed = try await SDKTestBed.start()
        defer { bed.finish() }
        let network = FaultyTransport()
        let ana = try await bed.device(transport: network)
        try bed.updateSettings { $0.hardMinimumAppVersion = "3.0.0" }
        try await ana.client.create("jobs", id: "job-1", ["title": "Boiler"])

        let blocked = try await ana.client.sync()

        #expect(blocked.state == .needsAttention(.updateRequired(minimumVersion: "3.0.0")))
        #expect(blocked.description == "Update required to sync (version 3.0.0 or later). Your 1 pending change is kept.")
        try await ana.client.update("jobs", id: "job-1", ["notes": "saved anyway"])
        network.clearLog()
        let loop = Task { await ana.client.run() }
        try await Task.sleep(for: .milliseconds(300))
        #expect(network.log.isEmpty, "a blocked loop sends nothing")
        ana.client.syncNow()
        for _ in 0..<250 where network.log.isEmpty { try await Task.sleep(for: .milliseconds(20)) }
        loop.cancel()
        #expect(network.log.first == "POST /v1/sync/push", "asked, it tries once more")
        #expect(ana.client.status.state == .needsAttention(.updateRequired(minimumVersion: "3.0.0")))

        try ana.client.close()
        let updated = try bed.client(path: ana.path, appVersion: "3.0.0")
        #expect(try await updated.sync().description == "All changes synced")
        #expect(try bed.serverRecord("jobs", "job-1")?["notes"] == "saved anyway")
    }

    @Test("Below minSupportedAppVersion the app may not create records, but edits and everything queued still upload")
    func belowMinimumVersion() async throws {
        let bed = try await SDKTestBed.start()
        defer { bed.finish() }
        let ana = try await bed.device()
        try await ana.client.create("jobs", id: "job-1", ["title": "Boiler"])
        try bed.updateSettings { $0.minSupportedAppVersion = "2.5.0" }

        let status = try await ana.client.sync()

        #expect(status.description == "All changes synced" && !status.canCreateRecords && status.minSupportedAppVersion == "2.5.0")
        #expect(try bed.serverRecord("jobs", "job-1") != nil)
        await #expect(throws: SyncClientError.updateRequiredToCreate(minimumVersion: "2.5.0")) {
            try await ana.client.create("jobs", id: "job-2", ["title": "Pump"])
        }
        try await ana.client.update("jobs", id: "job-1", ["notes": "still editable"])
        #expect(try await ana.client.sync().pending == 0)
        #expect(try bed.serverRecord("jobs", "job-1")?["notes"] == "still editable")
    }
}
