import FieldSyncClient
import Foundation
import SQLite
import SyncEngine
import SyncProtocol
import Testing

/// A device that was away too long downloads everything again without touching its queue;
/// synced copies expire locally, unsynced work never does.
@Suite("Cursor expiry and local retention")
struct CursorAndRetentionTests {
    @Test("410 CURSOR_EXPIRED: a full re-download drops what the server deleted meanwhile, and the queue is kept")
    func cursorExpired() async throws {
        let bed = try await SDKTestBed.start()
        defer { bed.finish() }
        let network = FaultyTransport()
        let ana = try await bed.device(transport: network)
        let ben = try await bed.device()
        for id in ["job-1", "job-2"] { try await ben.client.create("jobs", id: id, ["title": .string(id), "teamId": "team-1"]) }
        try await ben.client.sync()
        try await ana.client.sync()
        // While Ana is away: job-2 is deleted (initial syncs send no tombstones) and job-3 appears.
        try ana.client.close()
        try await ben.client.delete("jobs", id: "job-2")
        try await ben.client.create("jobs", id: "job-3", ["title": "job-3", "teamId": "team-1"])
        try await ben.client.sync()
        try ageStoredCursor(of: ana, in: bed, days: 31)
        // Ana's queued note waits for a photo the server refuses, so it is still queued at pull time.
        try bed.updateSettings { $0.maxAttachmentBytes = 65_536 }
        let back = try bed.client(path: ana.path, transport: network)
        let photo = try await back.addPhoto(at: try photoFile(in: bed, bytes: 70_000), to: "jobs", recordId: "job-1")
        try await back.update("jobs", id: "job-1", ["notes": .string(photo.id)])
        network.clearLog()

        let status = try await back.sync()

        #expect(network.log.filter { $0 == "GET /v1/sync/pull" }.count == 2, "the expired pull, then the re-download")
        #expect(try await back.records("jobs").map(\.id) == ["job-1", "job-3"])
        let job = try #require(try await back.record("jobs", id: "job-1"))
        #expect(job.fields["notes"] == .string(photo.id) && job.fields["title"] == "job-1" && job.pendingChanges == 1)
        #expect(status.pendingChanges == 1)
    }

    @Test("Synced records older than localRetentionDays are dropped with their uploaded photos; unsynced work stays")
    func localRetention() async throws {
        let bed = try await SDKTestBed.start()
        defer { bed.finish() }
        try bed.updateSettings { $0.localRetentionDays = 1 }
        let network = FaultyTransport()
        let clock = TestClock()
        let ana = try await bed.device(transport: network, clock: clock)
        try await ana.client.create("jobs", id: "job-1", ["title": "Boiler"])
        try await ana.client.create("jobs", id: "job-2", ["title": "Pump"])
        let photo = try await ana.client.addPhoto(at: try photoFile(in: bed, bytes: 70_000), to: "part_usage", recordId: "pu-1")
        try await ana.client.create("part_usage", id: "pu-1", ["job_id": "job-1", "sku": "S", "qty": 1, "photo": .string(photo.id)])
        #expect(try await ana.client.sync().isSynced)
        network.set(.networkDown)
        try await ana.client.update("jobs", id: "job-2", ["notes": "not synced yet"])

        clock.advance(by: 12 * 3_600)
        _ = try await ana.client.sync()
        #expect(try await ana.client.records("jobs").map(\.id) == ["job-1", "job-2"], "half a day: everything stays")

        clock.advance(by: 36 * 3_600)
        _ = try await ana.client.sync()

        #expect(try await ana.client.records("jobs").map(\.id) == ["job-2"])
        #expect(try await ana.client.records("part_usage").isEmpty)
        #expect(try await ana.client.photos(of: "part_usage", recordId: "pu-1").isEmpty)
        #expect(!FileManager.default.fileExists(atPath: photo.file.path))
        #expect(try await ana.client.record("jobs", id: "job-2")?.fields["notes"] == "not synced yet")
        #expect(try bed.serverRecord("jobs", "job-1") != nil)
    }

    /// Replaces the device's stored pull cursor with the same position issued `days` ago.
    private func ageStoredCursor(of device: TestDevice, in bed: SDKTestBed, days: Double) throws {
        let queue = try DatabaseQueue(path: device.path)
        defer { try? queue.close() }
        try queue.write { db in
            let cursor = try #require(try db.value(String.self, "SELECT cursor FROM device"))
            try db.execute("UPDATE device SET cursor = ?", [try bed.agedCursor(cursor, days: days)])
        }
    }
}
