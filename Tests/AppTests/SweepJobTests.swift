import App
import AppTesting
import Dispatch
import Foundation
import Postgres
import PostgresTesting
import Storage
import SyncEngine
import SyncProtocol
import Testing
import Worker

/// The `sweeps` job run through the job runner against real files while the server serves:
/// what it removes, what it keeps (in use, or younger than its grace), and the counts its run records.
@Suite("Sweeps job through the runner", .serialized)
struct SweepJobTests {
    /// A server on a data folder of its own, its worker off: the tests run the job themselves.
    static func startServer() async throws -> (TestServer, data: URL) {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("fieldsync-sweeps-\(UUID().uuidString.prefix(8))")
        do {
            let server = try await TestServer.start {
                $0.dataDirectory = data
                $0.runsWorker = false
            }
            return (server, data)
        } catch {
            try? FileManager.default.removeItem(at: data)
            throw error
        }
    }

    @Test("Sweeps remove expired uploads, old spools, closed upload files and old orphan blobs; fresh and referenced files stay")
    func sweeps() async throws {
        let (server, data) = try await Self.startServer()
        defer {
            server.stop()
            try? FileManager.default.removeItem(at: data)
        }
        let ana = try await server.device(.field, team: "north")
        let photo = Data((0..<1000).map { UInt8($0 % 11) })
        try await ana.upload(photo, attId: "att-done")
        try await LeftoverSweepTests.startTwoChunkUpload(ana)
        try server.core.database.withConnection { connection in
            try connection.execute("UPDATE attachments SET expires_at = now() - interval '1 hour' WHERE att_id = 'att-open'")
        }
        let folders = [
            "spool": server.spoolDirectory, "uploads": data.appendingPathComponent("uploads"), "blobs": data.appendingPathComponent("blobs"),
        ]
        let expiredUpload = try #require(try LeftoverSweepTests.files(in: folders).first { $0.hasPrefix("uploads/") })
        let referenced = try #require(try LeftoverSweepTests.files(in: folders).first { $0.hasPrefix("blobs/") })

        let orphanOld = String(repeating: "ab", count: 32)
        let orphanNew = String(repeating: "cd", count: 32)
        let (oldSpool, newSpool) = ("spool/fieldsync-body-a1B2c3", "spool/part-\(UUID().uuidString)")
        let closedUpload = "uploads/\(UUID().uuidString.lowercased())"
        let planted = ["blobs/ab/ab/\(orphanOld)", "blobs/cd/cd/\(orphanNew)", oldSpool, newSpool, closedUpload]
        for path in planted { try LeftoverSweepTests.write(LeftoverSweepTests.url(of: path, in: folders)) }
        let old = Date(timeIntervalSinceNow: -2 * 86_400)
        for path in ["blobs/ab/ab/\(orphanOld)", oldSpool, referenced] {
            try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: LeftoverSweepTests.url(of: path, in: folders).path)
        }
        let before = try LeftoverSweepTests.files(in: folders)

        let runner = Application.jobRunner(server.core)
        let job = try WorkerJobTests.job("sweeps", of: server)
        guard case .ran(let id, .succeeded) = try runner.run(job) else {
            Issue.record("the sweeps run did not succeed")
            return
        }
        let run = try #require(try runner.runs.recent(job: "sweeps", limit: 1).first)
        #expect(run.id == id)
        #expect(run.counts == ["uploadSessions": 1, "bodySpools": 1, "uploadFiles": 1, "partialBlobs": 0, "unreferencedBlobs": 1])
        #expect(run.done == 4 && run.total == 4)
        let removed = before.subtracting(try LeftoverSweepTests.files(in: folders))
        #expect(removed == [expiredUpload, "blobs/ab/ab/\(orphanOld)", oldSpool, closedUpload])
        let open = try server.core.database.withConnection {
            try $0.query("SELECT count(*) FROM attachments WHERE att_id = 'att-open'")[0].decode(0, as: Int64.self)
        }
        #expect(open == 0)
        // The referenced blob, old as it is, still serves.
        let download = try await server.client.get("/v1/attachments/att-done/content", headers: ana.headers, token: ana.token)
        #expect(download.status == 200 && download.body == photo)

        guard case .ran(_, .succeeded) = try runner.run(job) else {
            Issue.record("the second sweeps run did not succeed")
            return
        }
        #expect(try runner.runs.recent(job: "sweeps", limit: 1).first?.total == 0, "nothing left to sweep")
    }

    @Test("An old orphan blob whose bytes a finalize is storing right now is kept: the sweep waits for its lock, then sees its row")
    func finalizeMeanwhile() async throws {
        let (server, data) = try await Self.startServer()
        defer {
            server.stop()
            try? FileManager.default.removeItem(at: data)
        }
        let digest = String(repeating: "ef", count: 32)
        let file = data.appendingPathComponent("blobs/ef/ef/\(digest)")
        try LeftoverSweepTests.write(file)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -2 * 86_400)], ofItemAtPath: file.path)

        // A finalize that found these bytes already stored, between taking the blob's lock and committing its row.
        let store = PostgresAttachmentStore(database: server.core.database)
        let (locked, release) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
        let finalize = Task {
            try await onDedicatedThread {
                try store.transaction { tx in
                    try tx.lockBlob(digest)
                    try tx.recordBlob(digest, size: 9, contentType: "image/jpeg")
                    locked.signal()
                    release.wait()
                }
            }
        }
        defer { release.signal() }
        locked.wait()
        let runner = Application.jobRunner(server.core)
        let job = try WorkerJobTests.job("sweeps", of: server)
        let sweep = Task { try await onDedicatedThread { try runner.run(job) } }
        let waiting = try await eventually(within: .seconds(30)) { () -> Bool? in
            try server.core.database.withConnection { connection in
                try connection.query("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")[0].decode(0, as: Int64.self)
            } == 1 ? true : nil
        }
        #expect(waiting == true, "the sweep waits for the finalize's lock")
        release.signal()
        try await finalize.value
        guard case .ran(_, .succeeded) = try await sweep.value else {
            Issue.record("the sweeps run did not succeed")
            return
        }
        #expect(try runner.runs.recent(job: "sweeps", limit: 1).first?.counts["unreferencedBlobs"] == 0)
        #expect(FileManager.default.fileExists(atPath: file.path))
    }
}
