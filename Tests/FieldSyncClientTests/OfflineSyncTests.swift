import FieldSyncClient
import Foundation
import SyncEngine
import SyncProtocol
import Testing

/// Work saved offline reaches the server once the network is back, exactly once, in order.
@Suite("Offline edits and sync")
struct OfflineSyncTests {
    @Test("Edits made offline are saved at once, show with the pending count, and sync when the network returns")
    func offlineThenSync() async throws {
        let bed = try await SDKTestBed.start()
        defer { bed.finish() }
        let network = FaultyTransport()
        let ana = try await bed.device(transport: network)
        network.set(.networkDown)

        try await ana.client.create("jobs", id: "job-1", ["title": "Boiler", "status": "in_progress"])
        try await ana.client.create("jobs", id: "job-2", ["title": "Pump"])
        try await ana.client.update("jobs", id: "job-1", ["labor_minutes": 90])
        let offline = try await ana.client.sync()

        #expect(offline.description == "Waiting for network. 3 pending")
        guard case .waitingForNetwork = offline.state else { throw Failure("not waiting: \(offline.state)") }
        let shown = try #require(try await ana.client.record("jobs", id: "job-1"))
        #expect(shown.fields == ["title": "Boiler", "status": "in_progress", "labor_minutes": 90] && shown.pendingChanges == 2)
        #expect(try bed.serverRecord("jobs", "job-1") == nil)

        network.set(nil)
        let online = try await ana.client.sync()

        #expect(online.description == "All changes synced" && online.pending == 0)
        #expect(try bed.serverRecord("jobs", "job-1")?["labor_minutes"] == 90)
        #expect(try bed.serverRecord("jobs", "job-2")?["title"] == "Pump")
        let ops = try bed.loggedOps(deviceId: ana.client.deviceId)
        #expect(ops.map(\.clientSeq) == [1, 2, 3] && ops.allSatisfy { $0.status == "applied" })
        #expect(try await ana.client.record("jobs", id: "job-1")?.isSynced == true)
    }

    @Test("The running loop syncs an edit on its own, and the status stream shows it pending, syncing and synced")
    func loopAndStatusStream() async throws {
        let bed = try await SDKTestBed.start()
        defer { bed.finish() }
        let ana = try await bed.device(clock: TestClock())
        let loop = Task { await ana.client.run() }
        defer { loop.cancel() }
        try await ana.client.waitForStatus { $0.isSynced }
        let updates = ana.client.statusUpdates()
        let seen = Task {
            var lines: [String] = []
            for await status in updates {
                lines.append(status.description)
                if lines.count > 1, status.isSynced { break }
            }
            return lines
        }

        try await ana.client.create("jobs", id: "job-1", ["title": "Boiler"])

        let lines = await seen.value
        #expect(lines.first == "All changes synced" && lines.last == "All changes synced")
        #expect(lines.contains("1 change pending") && lines.contains { $0.hasPrefix("Syncing") })
        #expect(try bed.serverRecord("jobs", "job-1") != nil)
    }

    @Test("An op whose answer was lost is sent again and applied once; later edits carry the next clientSeq")
    func lostAnswer() async throws {
        let bed = try await SDKTestBed.start()
        defer { bed.finish() }
        let network = FaultyTransport()
        let ana = try await bed.device(transport: network)
        try await ana.client.create("jobs", id: "job-1", ["title": "Boiler"])
        network.set(.cutAfterSending(matching: "/v1/sync/push", count: 1))

        let cut = try await ana.client.sync()
        try await ana.client.update("jobs", id: "job-1", ["notes": "checked"])
        let retried = try await ana.client.sync()

        #expect(cut.pendingChanges == 1 && retried.description == "All changes synced")
        let ops = try bed.loggedOps(deviceId: ana.client.deviceId)
        #expect(ops.map(\.clientSeq) == [1, 2] && ops.map(\.recordId) == ["job-1", "job-1"])
        #expect(
            try bed.serverRecord("jobs", "job-1") == ["title": "Boiler", "notes": "checked", "assigneeId": .string(ana.user.id), "teamId": "team-1"])
    }

    @Test("A phone whose clock is an hour fast still syncs: occurredAt follows the server's clock, not the device's")
    func wrongDeviceClock() async throws {
        let bed = try await SDKTestBed.start()
        defer { bed.finish() }
        let ana = try await bed.device(clock: TestClock(start: Date().addingTimeInterval(3_600)))

        try await ana.client.create("jobs", id: "job-1", ["title": "Boiler"])
        let status = try await ana.client.sync()

        #expect(status.description == "All changes synced")
        let stamped = try #require(try bed.loggedOps(deviceId: ana.client.deviceId).first?.body["occurredAt"]?.stringValue)
        #expect(abs(try #require(RFC3339.date(from: stamped)).timeIntervalSinceNow) < 120)
    }

    @Test("The outbox goes out in clientSeq order, in batches of at most maxOpsPerPush")
    func batches() async throws {
        let bed = try await SDKTestBed.start()
        defer { bed.finish() }
        try bed.updateSettings { $0.maxOpsPerPush = 10 }
        let network = FaultyTransport()
        let ana = try await bed.device(transport: network)
        network.set(.networkDown)
        for index in 1...35 { try await ana.client.create("jobs", id: "job-\(index)", ["title": .string("job \(index)")]) }
        network.set(nil)

        let status = try await ana.client.sync()

        #expect(status.pending == 0)
        #expect(network.log.filter { $0 == "POST /v1/sync/push" }.count == 4)
        let ops = try bed.loggedOps(deviceId: ana.client.deviceId)
        #expect(ops.map(\.clientSeq) == Array(1...35) && ops.map(\.recordId) == (1...35).map { "job-\($0)" })
    }

    @Test("A push over the server's body limit is split, and a lowered maxOpsPerPush is learned from the refusal")
    func pushLimits() async throws {
        let bed = try await SDKTestBed.start()
        defer { bed.finish() }
        let network = FaultyTransport()
        let ana = try await bed.device(transport: network)
        let long = JSONValue.string(String(repeating: "n", count: 400_000))
        for index in 1...3 { try await ana.client.create("jobs", id: "big-\(index)", ["title": "t", "notes": long]) }
        #expect(try await ana.client.sync().pending == 0)
        #expect(network.log.filter { $0 == "POST /v1/sync/push" }.count == 4, "one refused push of 3, then one op each")

        try bed.updateSettings { $0.maxOpsPerPush = 10 }
        for index in 1...25 { try await ana.client.create("jobs", id: "job-\(index)", ["title": "t"]) }
        network.clearLog()
        #expect(try await ana.client.sync().pending == 0)
        #expect(network.log.filter { $0 == "POST /v1/sync/push" }.count == 4, "one refused push of 25, then 10, 10, 5")
        #expect(try bed.loggedOps(deviceId: ana.client.deviceId).count == 28)
    }

    @Test("Another device's changes arrive by pull; a pending local edit stays on top of them")
    func pullKeepsPendingEdits() async throws {
        let bed = try await SDKTestBed.start()
        defer { bed.finish() }
        let ana = try await bed.device()
        let ben = try await bed.device()
        try await ana.client.create("jobs", id: "job-1", ["title": "Boiler", "notes": "old"])
        try await ana.client.sync()
        try await ben.client.sync()
        try await ben.client.update("jobs", id: "job-1", ["title": "Boiler room 2"])
        try await ben.client.sync()
        // Ana's note waits for a photo the server then refuses (its size limit dropped), so
        // the note stays queued, deferred, while she pulls.
        let photo = try await ana.client.addPhoto(at: try photoFile(in: bed, bytes: 70_000), to: "jobs", recordId: "job-1")
        try await ana.client.update("jobs", id: "job-1", ["notes": .string(photo.id)])
        try bed.updateSettings { $0.maxAttachmentBytes = 65_536 }

        let status = try await ana.client.sync()

        #expect(status.state == .needsAttention(.issues(1)) && status.pendingChanges == 1)
        let shown = try #require(try await ana.client.record("jobs", id: "job-1"))
        #expect(shown.fields["title"] == "Boiler room 2" && shown.fields["notes"] == .string(photo.id))
        #expect(shown.pendingChanges == 1)
        #expect(try bed.serverRecord("jobs", "job-1")?["notes"] == "old")
    }

    @Test("Deletes and records leaving the device's scope disappear from it on the next pull")
    func deletesAndRemovals() async throws {
        let bed = try await SDKTestBed.start()
        defer { bed.finish() }
        let ana = try await bed.device(team: "north")
        let ben = try await bed.device(team: "north")
        try await ben.client.create("jobs", id: "job-1", ["title": "Shared", "teamId": "north"])
        try await ben.client.create("jobs", id: "job-2", ["title": "Moves", "teamId": "north"])
        try await ben.client.sync()
        try await ana.client.sync()
        #expect(try await ana.client.records("jobs").map(\.id) == ["job-1", "job-2"])

        try await ben.client.delete("jobs", id: "job-1")
        try await ben.client.update("jobs", id: "job-2", ["teamId": .null, "assigneeId": .string(ben.user.id)])
        try await ben.client.sync()
        try await ana.client.sync()

        #expect(try await ana.client.records("jobs").isEmpty)
    }
}

/// A test failure with a message.
struct Failure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A camera file of `bytes` random bytes in the bed's folder.
func photoFile(in bed: SDKTestBed, bytes: Int) throws -> URL {
    var generator = SystemRandomNumberGenerator()
    let data = Data((0..<bytes).map { _ in UInt8.random(in: 0...255, using: &generator) })
    let url = bed.folder.appendingPathComponent("camera-\(UUID().uuidString.prefix(8)).jpg")
    try data.write(to: url)
    return url
}
