import AppTesting
import Foundation
import Storage
import SyncEngine
import SyncProtocol
import Testing

/// A device process is killed with SIGKILL at random instants while it edits, pushes and
/// uploads, and started again on the same SQLite file each time. At the end the server
/// must hold every edit exactly once and every photo once, complete and intact.
///
/// `FIELDSYNC_CRASH_KILLS` sets the number of kills (default 8; `make test-sdk-crash` runs 40).
@Suite("Crash test")
struct CrashTests {
    @Test("A device killed with SIGKILL at random points while editing, pushing and uploading loses and duplicates nothing")
    func killedDevice() async throws {
        let kills = ProcessInfo.processInfo.environment["FIELDSYNC_CRASH_KILLS"].flatMap(Int.init) ?? 8
        var work = Workload(edits: max(kills * 12, 60), photos: max(kills / 3, 3), photoBytes: 300_000)
        let bed = try await SDKTestBed.start()
        defer { bed.finish() }
        try bed.updateSettings { $0.chunkBytes = 65_536 }
        let (user, password) = try bed.server.makeUser(role: .field, team: "team-1")
        let device = [
            "--database", bed.databasePath("crash"), "--server", bed.server.baseURL.absoluteString, "--latency-ms", "10",
        ]
        #expect(try await DeviceProcess(device + ["sign-in", user.username], input: password + "\n").wait(timeout: .seconds(30)) == 0)

        var phases: [String: Int] = [:]
        var killed = 0
        var extended = 0
        while killed < kills {
            let child = try DeviceProcess(device + work.arguments)
            try await Task.sleep(for: .milliseconds(Int.random(in: 40...500)))
            guard child.isRunning else {
                // On a loaded machine this task can wake seconds late and find the work done.
                // The workload resumes, so it grows instead, and every kill still lands mid-work.
                let status = try await child.wait(timeout: .seconds(5))
                try #require(status == 0, "the device failed before kill \(killed + 1): \(child.lines.suffix(5))")
                try #require(extended < kills, "the device keeps finishing its work before kill \(killed + 1)")
                extended += 1
                work.edits += 24
                continue
            }
            child.kill(SIGKILL)
            killed += 1
            phases[Self.phase(of: child.lines.last), default: 0] += 1
        }
        let last = try DeviceProcess(device + work.arguments)
        #expect(try await last.wait(timeout: .seconds(180)) == 0, "the final run syncs everything: \(last.lines.suffix(5))")

        let deviceId = try #require(try bed.deviceIds(of: user.id).first)
        try verify(work, deviceId: deviceId, in: bed, camera: bed.databasePath("crash"))
        print(
            "crash test: \(killed) kills (\(phases.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))), "
                + "work grown \(extended) times; "
                + "\(work.edits) edits and \(work.photos) photos, each found exactly once on the server")
    }

    /// The server holds ops 1…n, all applied, one per edit marker and one per photo record,
    /// and one complete attachment per photo with the camera file's SHA-256.
    private func verify(_ work: Workload, deviceId: String, in bed: SDKTestBed, camera: String) throws {
        let ops = try bed.loggedOps(deviceId: deviceId)
        #expect(ops.map(\.clientSeq) == Array(1...Int64(work.edits + work.photos)))
        #expect(ops.allSatisfy { $0.status == "applied" })
        let markers = ops.compactMap { $0.body["fields"]?["notes"]?["new"]?.stringValue }
        #expect(markers.sorted() == (1...work.edits).map { "e\($0)" }.sorted(), "each edit exactly once")
        let attachments = try bed.attachments(deviceId: deviceId)
        #expect(attachments.map(\.recordId).sorted() == (1...work.photos).map { "wp-\($0)" }.sorted(), "each photo exactly once")
        for attachment in attachments {
            let p = attachment.recordId.dropFirst(3)
            #expect(attachment.status == "complete")
            #expect(attachment.sha256 == (try FileDigest.sha256(of: URL(fileURLWithPath: camera + "-camera-\(p).jpg")).hex))
            #expect(try bed.serverRecord("part_usage", attachment.recordId)?["photo"] == .string(attachment.attId))
        }
        for k in stride(from: 1, through: work.edits, by: 2) {
            let expected = k + 1 <= work.edits ? "e\(k + 1)" : "e\(k)"
            #expect(try bed.serverRecord("jobs", "wj-\(k)")?["notes"] == .string(expected))
        }
    }

    /// What the device was doing when it was killed, from the last line it printed.
    private static func phase(of line: String?) -> String {
        guard let word = line?.split(separator: " ").first else { return "starting" }
        switch word {
        case "edit", "photo": return "editing"
        case "push", "sync": return "pushing"
        case "upload": return "uploading"
        default: return "pulling"
        }
    }

    /// The device's work. Its pace between edits is what usually leaves work for every kill.
    struct Workload {
        var edits: Int
        var photos: Int
        var photoBytes: Int

        var arguments: [String] {
            [
                "work", "--edits", String(edits), "--photos", String(photos), "--photo-bytes", String(photoBytes), "--sync-every", "7",
                "--pause-ms", "60",
            ]
        }
    }
}
