import FieldSyncClient
import Foundation
import SyncProtocol

/// One simulated phone: an SDK client with its own SQLite file, worked by a technician
/// through a field day. Record ids start with the device's name, so a fleet's records never
/// collide; the ids and values written are those `FleetVerifier` looks for on the server.
struct FleetDevice: Sendable {
    /// `<run>-d<n>`: prefixes the device's record ids.
    let name: String
    let username: String
    let password: String
    let databasePath: String
    /// Where the camera writes photos before the SDK copies them.
    let cameraFolder: URL

    static let appVersion = "2.3.0"

    /// The notes a dispatcher writes on a colliding job, and the device's own.
    static let dispatcherNotes = "Dispatcher: call the customer before going"
    static let deviceNotes = "Technician: customer not home, left a card"

    func jobId(_ k: Int) -> String { "\(name)-j\(k)" }
    func visitId(_ k: Int) -> String { "\(name)-v\(k)" }
    func reportId(_ k: Int) -> String { "\(name)-r\(k)" }
    func orderId(_ k: Int) -> String { "\(name)-o\(k)" }

    /// The job the status update `u` (1-based) changes: never one of the colliding jobs,
    /// whose notes edit is their last op of the day.
    func statusJob(_ u: Int, _ day: FieldDay) -> Int { day.collisions + 1 + (u - 1) % (day.jobs - day.collisions) }

    /// The job status written by update `u`.
    static func status(_ u: Int) -> String { ["in_progress", "on_hold", "complete"][u % 3] }

    /// The device's SDK client; `configure` changes its configuration (e.g. photos in flight).
    func open(
        _ transport: any HTTPTransport, serverURL: URL, configure: (inout SyncClient.Configuration) -> Void = { _ in }
    ) throws -> SyncClient {
        var configuration = SyncClient.Configuration(serverURL: serverURL, databasePath: databasePath, appVersion: Self.appVersion)
        configuration.transport = transport
        configuration.platform = "fieldsync-simulate"
        configure(&configuration)
        return try SyncClient(configuration: configuration)
    }

    /// Signs in (unless the device already is) and creates the day's jobs, then syncs them
    /// (the morning's network).
    func morning(_ client: SyncClient, _ day: FieldDay) async throws {
        if try await client.user() == nil { try await signIn(client) }
        for k in 1...max(day.jobs, 1) where k <= day.jobs {
            try await client.create("jobs", id: jobId(k), ["title": .string("Job \(k) of \(name)"), "status": "in_progress", "notes": "start"])
        }
        _ = try await FleetSync.settle(client)
    }

    /// Signs in, trying again (as a technician taps again) when the network failed it, up to
    /// `attempts` times.
    private func signIn(_ client: SyncClient, attempts: Int = 5) async throws {
        for attempt in 1... {
            do {
                _ = try await client.signIn(username: username, password: password)
                return
            } catch SyncClientError.signInFailed where attempt < attempts {
                try await Task.sleep(for: .milliseconds(200 * attempt))
            }
        }
    }

    /// The offline part of the day: visits with check-in and check-out, reports with photos,
    /// orders, status updates, and the edits that collide with the dispatcher's. Every
    /// `tryEvery` edits the device tries to sync (and fails while the network is down).
    func fieldWork(_ client: SyncClient, _ day: FieldDay, tryEvery: Int = 25) async throws {
        var edits = 0
        func edited() async throws {
            edits += 1
            if edits % tryEvery == 0 { _ = try await client.sync() }
        }
        let steps = max(day.visits, day.reports, day.orders, 1)
        let updatesPerStep = day.statusUpdates / steps
        var update = 0
        for step in 1...steps {
            if step <= day.visits {
                for (index, status) in ["planned", "checked_in", "in_progress", "done"].enumerated() {
                    if index == 0 {
                        try await client.create("visits", id: visitId(step), ["siteId": .string("site-\(step)"), "status": "planned"])
                    } else {
                        let notes: JSONValue = status == "done" ? .string("checked out after visit \(step)") : .string("visit \(step)")
                        try await client.update("visits", id: visitId(step), ["status": .string(status), "notes": notes])
                    }
                    try await edited()
                }
            }
            if step <= day.reports {
                try await report(step, client, day)
                try await edited()
            }
            if step <= day.orders {
                try await client.create(
                    "orders", id: orderId(step),
                    ["customerId": .string("cust-\(step)"), "lines": [["sku": "FILTER-10", "qty": .int(Int64(step))]], "note": "van stock"])
                try await edited()
            }
            let updates = step == steps ? day.statusUpdates - update : updatesPerStep
            for _ in 0..<max(updates, 0) {
                update += 1
                try await client.update(
                    "jobs", id: jobId(statusJob(update, day)), ["status": .string(Self.status(update)), "labor_minutes": .int(Int64(update))])
                try await edited()
            }
        }
        for k in 1...max(day.collisions, 1) where k <= day.collisions {
            try await client.update("jobs", id: jobId(k), ["notes": .string(Self.deviceNotes)])
            try await edited()
        }
    }

    private func report(_ k: Int, _ client: SyncClient, _ day: FieldDay) async throws {
        var photoIds: [JSONValue] = []
        for p in 1...max(day.photosPerReport, 1) where p <= day.photosPerReport {
            let file = cameraFolder.appendingPathComponent("\(name)-r\(k)-p\(p).jpg")
            try RandomBytes.data(count: day.photoBytes).write(to: file)
            let photo = try await client.addPhoto(at: file, to: "reports", recordId: reportId(k))
            try? FileManager.default.removeItem(at: file)
            photoIds.append(.string(photo.id))
        }
        try await client.create(
            "reports", id: reportId(k),
            ["assignmentId": .string("asg-\(name)-\(k)"), "answers": ["boilerPressure": .double(1.5), "leaks": false], "photos": .array(photoIds)])
    }
}

/// Syncing a device until nothing is left to send.
enum FleetSync {
    /// Syncs until nothing is pending, pausing a little longer after each attempt that
    /// leaves work (a cut link, a busy server), at most `attempts` times.
    /// - Returns: the last status.
    static func settle(_ client: SyncClient, attempts: Int = 200) async throws -> SyncStatus {
        var status = client.status
        for attempt in 1...attempts {
            status = try await client.sync()
            if status.pending == 0 { return status }
            try await Task.sleep(for: .milliseconds(min(50 * attempt, 2_000)))
        }
        return status
    }
}

/// Incompressible bytes, as a JPEG's are.
enum RandomBytes {
    static func data(count: Int) -> Data {
        var generator = SystemRandomNumberGenerator()
        var data = Data(count: count)
        data.withUnsafeMutableBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                withUnsafeBytes(of: generator.next()) { word in
                    let length = min(word.count, buffer.count - offset)
                    buffer.baseAddress!.advanced(by: offset).copyMemory(from: word.baseAddress!, byteCount: length)
                    offset += length
                }
            }
        }
        return data
    }
}
