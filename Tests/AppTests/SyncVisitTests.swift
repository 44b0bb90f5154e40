import App
import AppTesting
import Foundation
import Postgres
import SyncEngine
import SyncProtocol
import Testing

/// A sync call's bookkeeping (the device row and `device.synced`): a push's commits with its
/// changes; a pull's stamps the device on every page and is announced once the device caught up.
@Suite("Sync bookkeeping over HTTP")
struct SyncVisitTests {
    /// The outbox as `type/kind` (kind only for `device.synced`) with each row's transaction id.
    private func outbox(_ server: TestServer) throws -> [(event: String, transaction: String)] {
        try server.core.database.withConnection { connection in
            try connection.query("SELECT type || coalesce('/' || (data->>'kind'), ''), xmin::text FROM events ORDER BY id").map {
                (try $0.decode(0, as: String.self), try $0.decode(1, as: String.self))
            }
        }
    }

    /// The device row's bookkeeping: user, app version, whether it has a sync time, high-water mark.
    private func deviceRow(_ device: SyncDevice) throws -> [String] {
        try device.server.core.database.withConnection { connection in
            let row = try connection.query(
                """
                SELECT user_id, app_version, (last_sync_at IS NOT NULL)::text, received_through::text, xmin::text
                FROM devices WHERE device_id = \(device.deviceId)
                """)[0]
            return try (0..<5).map { try row.decode($0, as: String.self) }
        }
    }

    @Test("device.synced follows the push's changes in the same transaction, which also stamps the device row")
    func oneTransaction() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device(appVersion: "2.4.1")

        let response = try await ana.pushResponse([ana.create("jobs", "job-1", ["title": "a"]), ana.create("jobs", "job-2", ["title": "b"])])

        #expect(response.newServerSeq == response.results.compactMap(\.serverSeq).max())
        let events = try outbox(server)
        #expect(events.map(\.event) == ["record.changed", "record.changed", "device.synced/push"])
        let device = try deviceRow(ana)
        #expect(Array(device.prefix(4)) == [ana.user.id, "2.4.1", "true", "2"])
        #expect(Set(events.map(\.transaction) + [device[4]]).count == 1)
    }

    @Test("a push that changes nothing is still recorded and answers the latest committed number")
    func nothingChanged() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device()
        let ben = try await server.device(appVersion: "1.0.0")
        let seq = try await ana.applied(ana.create("jobs", "job-1", ["title": "a"]))

        let response = try await ben.pushResponse([ben.update("jobs", "job-404", ["notes": "x"], base: seq)])

        #expect(response.results[0].code == .recordNotFound)
        #expect(response.newServerSeq == seq)
        #expect(try outbox(server).map(\.event) == ["record.changed", "device.synced/push", "device.synced/push"])
        #expect(Array(try deviceRow(ben).prefix(3)) == [ben.user.id, "1.0.0", "true"])
    }

    @Test("a pull stamps the device row on every page and announces device.synced once, with the page that catches up")
    func pullAnnouncedWhenCaughtUp() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device()
        let ben = try await server.device(appVersion: "3.1.0")
        _ = try await ana.push((1...3).map { ana.create("jobs", "job-\($0)", ["title": "t"]) })

        let first = try await ben.pull(limit: 2)
        #expect(first.hasMore)
        #expect(try deviceRow(ben)[2] == "true")
        #expect(try outbox(server).filter { $0.event == "device.synced/pull" }.isEmpty)

        let last = try await ben.pull(cursor: first.nextCursor, limit: 2)
        #expect(!last.hasMore)
        #expect(try outbox(server).filter { $0.event == "device.synced/pull" }.count == 1)
    }
}
