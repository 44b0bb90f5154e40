import FieldSyncClient
import Foundation
import Support
import SyncProtocol

/// A deterministic field workload that can be killed at any instant and started again on
/// the same database: every step first asks the device's own store whether it is done.
///
/// Edit k (1-based) writes the marker `e<k>` into `notes`: odd k creates `jobs/wj-<k>`,
/// even k updates `jobs/wj-<k-1>`; `pause-ms` passes after each, as a person typing. Photo p
/// is a file of `photo-bytes` bytes (seeded by p) attached to `part_usage/wp-<p>`, whose record
/// names it; photos come evenly spread between the edits. The device syncs every
/// `sync-every` edits, then until nothing is left, and prints each step as it goes.
struct FieldWork {
    let edits: Int
    let photos: Int
    let photoBytes: Int
    let syncEvery: Int
    let pause: Duration

    init(_ arguments: CommandLineArguments) throws {
        guard let edits = arguments.value("edits").flatMap(Int.init), edits >= 0 else { throw UsageError("work needs --edits N") }
        self.edits = edits
        photos = arguments.value("photos").flatMap(Int.init) ?? 0
        photoBytes = arguments.value("photo-bytes").flatMap(Int.init) ?? 300_000
        syncEvery = max(arguments.value("sync-every").flatMap(Int.init) ?? 5, 1)
        pause = .milliseconds(max(arguments.value("pause-ms").flatMap(Int.init) ?? 0, 0))
    }

    func run(on client: SyncClient) async throws -> Int32 {
        let progress = Task { await Self.reportProgress(of: client) }
        defer { progress.cancel() }
        // Photos come between edits, evenly spread, so uploads overlap with editing and pushing.
        let spacing = max(edits / (photos + 1), 1)
        for k in 1...max(edits, 1) where k <= edits {
            if try await !isDone(edit: k, on: client) {
                try await perform(edit: k, on: client)
                say("edit \(k)")
                if k % syncEvery == 0 { try await sync(client) }
                try await Task.sleep(for: pause)
            }
            if k % spacing == 0, k / spacing <= photos { try await attach(photo: k / spacing, on: client) }
        }
        // Any photo the spacing did not reach (or a run killed before its record); done ones are skipped.
        for p in 1...max(photos, 1) where p <= photos {
            try await attach(photo: p, on: client)
        }
        for _ in 0..<20 {
            let status = try await sync(client)
            if status.pending == 0 { return status.issueCount == 0 ? 0 : 3 }
        }
        return 3
    }

    private func isDone(edit k: Int, on client: SyncClient) async throws -> Bool {
        let target = try await client.record("jobs", id: "wj-\(k.isMultiple(of: 2) ? k - 1 : k)")
        return k.isMultiple(of: 2) ? target?.fields["notes"] == .string("e\(k)") : target != nil
    }

    private func perform(edit k: Int, on client: SyncClient) async throws {
        if k.isMultiple(of: 2) {
            try await client.update("jobs", id: "wj-\(k - 1)", ["notes": .string("e\(k)")])
        } else {
            try await client.create("jobs", id: "wj-\(k)", ["title": .string("job \(k)"), "notes": .string("e\(k)")])
        }
    }

    /// Adds the photo unless the record already holds one, then the record naming it.
    private func attach(photo p: Int, on client: SyncClient) async throws {
        let recordId = "wp-\(p)"
        var photo = try await client.photos(of: "part_usage", recordId: recordId).first
        if photo == nil {
            photo = try await client.addPhoto(at: try Self.photoFile(p, bytes: photoBytes, beside: client), to: "part_usage", recordId: recordId)
            say("photo \(p)")
        }
        guard let photo, try await client.record("part_usage", id: recordId) == nil else { return }
        try await client.create(
            "part_usage", id: recordId, ["job_id": "wj-1", "sku": .string("SKU-\(p)"), "qty": 1, "photo": .string(photo.id)])
        say("photo record \(p)")
    }

    @discardableResult
    private func sync(_ client: SyncClient) async throws -> SyncStatus {
        say("sync")
        let status = try await client.sync()
        say("synced: \(status)")
        return status
    }

    private func say(_ line: String) { Self.say(line) }

    private static func say(_ line: String) {
        // Unbuffered: a harness reading the output of a killed run sees every step it took.
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// Prints what a running sync is doing: `push sent/total` while ops go out, `upload
    /// sent/total` (bytes) while photos do.
    private static func reportProgress(of client: SyncClient) async {
        for await status in client.statusUpdates() {
            guard case .syncing(let progress) = status.state else { continue }
            if progress.bytesTotal > 0 {
                say("upload \(progress.bytesSent)/\(progress.bytesTotal)")
            } else if progress.changesTotal > 0 {
                say("push \(progress.changesSent)/\(progress.changesTotal)")
            }
        }
    }

    /// The camera's file for photo `p`: `bytes` bytes from a generator seeded by `p`, written
    /// beside the database (again after a kill, with the same content).
    static func photoFile(_ p: Int, bytes: Int, beside client: SyncClient) throws -> URL {
        let url = URL(fileURLWithPath: client.configuration.databasePath + "-camera-\(p).jpg")
        try photoContent(p, bytes: bytes).write(to: url, options: .atomic)
        return url
    }

    /// Deterministic bytes (xorshift), different for each `p`.
    static func photoContent(_ p: Int, bytes: Int) -> Data {
        var state = UInt64(p) &* 0x9E37_79B9_7F4A_7C15 | 1
        return Data(
            (0..<bytes).map { _ in
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                return UInt8(truncatingIfNeeded: state)
            })
    }
}
