import AppTesting
import Foundation
import Postgres
import SyncProtocol
import Testing

/// `POST /v1/reports/{serverId}/photos` over real HTTP: storage, append and completeness.
@Suite("Report contract: photos", .serialized)
struct ReportContractPhotoTests {
    @Test("A report expecting three photos where one upload fails stays incomplete; the retry completes it, once")
    func threePhotosOneFails() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let ana = try await server.device(.field)
        let accepted = try await ana.syncReports([SyncDevice.report("local-1", answers: ["photoCount": .int(3)])])[0]
        let serverId = try #require(accepted["serverId"]?.stringValue)
        let photos = (1...3).map { Data("photo-\($0)-".utf8) + Data(repeating: UInt8($0), count: 70_000) }

        let first = try await ana.uploadPhoto(photos[0], to: serverId)
        let second = try await ana.uploadPhoto(photos[1], to: serverId)
        // The third upload is cut off before its closing delimiter.
        let broken = try await ana.server.client.send(
            "POST", "/v1/reports/\(serverId)/photos", body: Data("--b\r\nContent-Disposition: form-data; filename=\"x\"\r\n\r\ncut".utf8),
            headers: ana.headers.merging(["Content-Type": "multipart/form-data; boundary=b"]) { _, new in new }, token: ana.token)

        #expect(first.status == 200 && second.status == 200, "\(first) \(second)")
        #expect(broken.status == 400)
        let afterFailure = try second.json()
        #expect(afterFailure["photosReceived"]?.intValue == 2 && afterFailure["photosComplete"] == .bool(false))
        #expect(try server.storedRecord("reports", serverId)?.payload["photos"]?.arrayValue?.count == 2)

        let third = try await ana.uploadPhoto(photos[2], to: serverId)
        let replay = try await ana.uploadPhoto(photos[2], to: serverId)
        let done = try third.json()
        #expect(done["photosReceived"]?.intValue == 3 && done["photosExpected"]?.intValue == 3 && done["photosComplete"] == .bool(true))
        #expect(try replay.json()["revision"] == done["revision"], "a retried photo is not appended twice")
        let stored = try #require(try server.storedRecord("reports", serverId))
        #expect(stored.payload["photos"]?.arrayValue?.count == 3)
        #expect(stored.serverSeq == done["revision"]?.intValue)

        let attId = try #require(done["attachmentId"]?.stringValue)
        let content = try await server.client.get("/v1/attachments/\(attId)/content", headers: ana.headers, token: ana.token)
        #expect(content.status == 200 && content.body == photos[2])
    }

    @Test("A photo for an unknown report, or another team's, is 404 NOT_FOUND and stores nothing")
    func unknownReport() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let ana = try await server.device(.field, team: "north")
        let ben = try await server.device(.field, team: "south")
        let bens = try #require(try await ben.syncReports([SyncDevice.report("local-1")])[0]["serverId"]?.stringValue)

        let missing = try await ana.uploadPhoto(Data("x".utf8), to: "report:missing")
        let foreign = try await ana.uploadPhoto(Data("y".utf8), to: bens)

        #expect(missing.status == 404 && foreign.status == 404, "\(missing) \(foreign)")
        #expect(try server.scalar("SELECT count(*) FROM attachments") == 0)
    }
}
