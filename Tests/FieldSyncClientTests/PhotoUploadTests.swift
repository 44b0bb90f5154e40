import FieldSyncClient
import Foundation
import SyncEngine
import SyncProtocol
import Testing

/// Photos upload in chunks that resume after a cut or a relaunch, and the edits that name
/// them wait on the server until they arrive.
@Suite("Photos")
struct PhotoUploadTests {
    @Test("An edit naming a photo is deferred until the photo arrives; a cut upload resumes in a relaunched app without re-sending stored chunks")
    func deferredUntilPhotoArrives() async throws {
        let bed = try await SDKTestBed.start()
        defer { bed.finish() }
        try bed.updateSettings { $0.chunkBytes = 65_536 }
        let network = FaultyTransport()
        let ana = try await bed.device(transport: network)
        let photo = try await ana.client.addPhoto(at: try photoFile(in: bed, bytes: 180_000), to: "part_usage", recordId: "pu-1")
        try await ana.client.create("part_usage", id: "pu-1", ["job_id": "job-1", "sku": "CAP-47", "qty": 2, "photo": .string(photo.id)])
        network.set(.cutAfterSending(matching: "/chunks/1", count: 1))

        let cut = try await ana.client.sync()

        guard case .waitingForNetwork = cut.state else { throw Failure("not waiting after the cut: \(cut.state)") }
        #expect(cut.pendingChanges == 1 && cut.pendingPhotos == 1)
        let deferred = try #require(try bed.loggedOps(deviceId: ana.client.deviceId).first)
        #expect(deferred.status == "deferred" && deferred.body["dependsOn"] == [.string(photo.id)])
        #expect(try bed.serverRecord("part_usage", "pu-1") == nil)

        // The app is killed and started again on the same database.
        try ana.client.close()
        network.clearLog()
        let relaunched = try bed.client(path: ana.path, transport: network)
        let status = try await relaunched.sync()

        #expect(status.description == "All changes synced")
        #expect(network.log.filter { $0.hasPrefix("PUT") } == ["PUT /v1/attachments/\(photo.id)/chunks/2"])
        #expect(try bed.serverRecord("part_usage", "pu-1")?["photo"] == .string(photo.id))
        #expect(try bed.attachments(deviceId: ana.client.deviceId).map(\.status) == ["complete"])
        #expect(try await relaunched.photos(of: "part_usage", recordId: "pu-1").map(\.state) == [.uploaded])
    }

    @Test("A chunk damaged on the device is named by finalize and only it is sent again; once repaired, the photo completes")
    func suspectChunks() async throws {
        let bed = try await SDKTestBed.start()
        defer { bed.finish() }
        try bed.updateSettings { $0.chunkBytes = 65_536 }
        let network = FaultyTransport()
        let ana = try await bed.device(transport: network)
        let photo = try await ana.client.addPhoto(at: try photoFile(in: bed, bytes: 150_000), to: "part_usage", recordId: "pu-1")
        let original = try Data(contentsOf: photo.file)
        var damaged = original
        damaged[70_000] ^= 0xff
        try damaged.write(to: photo.file)

        let status = try await ana.client.sync()

        let puts = network.log.filter { $0.hasPrefix("PUT") }.map { $0.split(separator: "/").last.map(String.init) ?? "" }
        #expect(puts.sorted() == ["0", "1", "1", "1", "2"])
        #expect(status.state == .needsAttention(.issues(1)))
        let issue = try #require(try await ana.client.issues().first)
        #expect(issue.photo?.id == photo.id && issue.code == .fileChecksumMismatch)
        #expect(issue.message.hasPrefix("The photo for part_usage/pu-1 could not be uploaded"))

        try original.write(to: photo.file)
        network.clearLog()
        try await ana.client.resolve(issue, keeping: .device)
        let repaired = try await ana.client.sync()

        #expect(repaired.description == "All changes synced")
        #expect(network.log.filter { $0.hasPrefix("PUT") } == ["PUT /v1/attachments/\(photo.id)/chunks/1"])
        let stored = try #require(try bed.attachments(deviceId: ana.client.deviceId).first)
        #expect(stored.status == "complete" && stored.sha256 == photo.sha256)
    }

    @Test("The same picture attached twice is stored once; both edits that name it apply")
    func duplicatePhoto() async throws {
        let bed = try await SDKTestBed.start()
        defer { bed.finish() }
        let ana = try await bed.device()
        let camera = try photoFile(in: bed, bytes: 90_000)
        for record in ["pu-1", "pu-2"] {
            let photo = try await ana.client.addPhoto(at: camera, to: "part_usage", recordId: record)
            try await ana.client.create("part_usage", id: record, ["job_id": "job-1", "sku": "S", "qty": 1, "photo": .string(photo.id)])
        }

        let status = try await ana.client.sync()

        #expect(status.description == "All changes synced")
        #expect(try bed.attachments(deviceId: ana.client.deviceId).map(\.status) == ["complete", "complete"])
        #expect(try bed.serverRecord("part_usage", "pu-1") != nil && bed.serverRecord("part_usage", "pu-2") != nil)
    }

    @Test("A photo over the server's size limit is refused at capture, and nothing is queued")
    func sizeLimitAtCapture() async throws {
        let bed = try await SDKTestBed.start()
        defer { bed.finish() }
        try bed.updateSettings { $0.maxAttachmentBytes = 100_000 }
        let ana = try await bed.device()

        await #expect(throws: SyncClientError.photoTooLarge(bytes: 150_000, limit: 100_000)) {
            try await ana.client.addPhoto(at: try photoFile(in: bed, bytes: 150_000), to: "part_usage", recordId: "pu-1")
        }
        #expect(ana.client.status.pendingPhotos == 0)
        #expect(try await ana.client.photos(of: "part_usage", recordId: "pu-1").isEmpty)
    }
}
