import FieldSyncClient
import Foundation
import SyncProtocol
import Testing

/// Several photos send their chunks at once, up to the configured number, so the round trips
/// of one hide behind another's chunks.
@Suite("Photos in flight")
struct PhotoConcurrencyTests {
    @Test(
        "With two uploads in flight, the server holds another photo's chunk before the first photo's chunk is sent; never more than two chunks are on the way"
    )
    func uploadsOverlap() async throws {
        let bed = try await SDKTestBed.start()
        defer { bed.finish() }
        let probe = UploadProbe()
        let ana = try await bed.device(transport: probe) { $0.photoUploadsInFlight = 2 }
        var photos: [String] = []
        for k in 1...4 {
            let photo = try await ana.client.addPhoto(at: try photoFile(in: bed, bytes: 30_000), to: "part_usage", recordId: "pu-\(k)")
            try await ana.client.create("part_usage", id: "pu-\(k)", ["job_id": "job-1", "sku": "S", "qty": 1, "photo": .string(photo.id)])
            photos.append(photo.id)
        }
        let deviceId = ana.client.deviceId
        probe.holdFirstChunk { try !bed.attachmentsWithChunks(deviceId: deviceId).isEmpty }

        let status = try await ana.client.sync()

        #expect(probe.conditionMet == true)
        #expect(probe.mostChunksOut == 2)
        #expect(status.description == "All changes synced")
        #expect(try bed.attachments(deviceId: deviceId).map(\.attId) == photos.sorted())
        #expect(try bed.attachments(deviceId: deviceId).allSatisfy { $0.status == "complete" })
        for k in 1...4 { #expect(try bed.serverRecord("part_usage", "pu-\(k)") != nil) }
    }

    @Test("With one upload in flight, chunks go one after another")
    func oneAtATime() async throws {
        let bed = try await SDKTestBed.start()
        defer { bed.finish() }
        let probe = UploadProbe()
        let ana = try await bed.device(transport: probe) { $0.photoUploadsInFlight = 1 }
        for k in 1...3 {
            let photo = try await ana.client.addPhoto(at: try photoFile(in: bed, bytes: 30_000), to: "part_usage", recordId: "pu-\(k)")
            try await ana.client.create("part_usage", id: "pu-\(k)", ["job_id": "job-1", "sku": "S", "qty": 1, "photo": .string(photo.id)])
        }

        let status = try await ana.client.sync()

        #expect(status.description == "All changes synced")
        #expect(probe.mostChunksOut == 1)
        #expect(try bed.attachments(deviceId: ana.client.deviceId).map(\.status) == ["complete", "complete", "complete"])
    }
}
