import FieldSyncClient
import Foundation
import SyncProtocol
import Synchronization

/// A fleet working one field day against a server: every device signs in and syncs its
/// jobs in the morning, a dispatcher then edits some of them, the devices work offline,
/// and the network comes back for all of them at once.
struct FleetRun: Sendable {
    let serverURL: URL
    let devices: [FleetDevice]
    let dispatcher: FleetDevice
    let day: FieldDay
    /// Devices working (or syncing) at the same moment.
    let concurrency: Int
    let network: FleetNetwork
    /// Applied to every device's SDK configuration.
    var configure: @Sendable (inout SyncClient.Configuration) -> Void = { _ in }

    /// What happened on the devices' side.
    struct Outcome: Sendable {
        /// The server's id of each device, by device name.
        var deviceIds: [String: String] = [:]
        /// Devices that still had work pending after syncing, or that failed, with why.
        var failures: [String] = []
        /// Issues (conflicts, rejections) the devices show.
        var issues = 0
        var morningSeconds = 0.0
        var fieldWorkSeconds = 0.0
        /// From the network's return until every device had sent everything.
        var drainSeconds = 0.0
        var network = FleetNetwork.Counters()
    }

    /// Runs the day; `networkBack` is called as the network returns, before the devices sync.
    func run(log: @Sendable (String) -> Void, networkBack: @Sendable () -> Void = {}) async throws -> Outcome {
        let outcome = Mutex(Outcome())
        @Sendable func fail(_ device: FleetDevice, _ what: String) { outcome.withLock { $0.failures.append("\(device.name): \(what)") } }

        log("morning: \(devices.count) devices sign in and sync \(day.jobs) jobs each")
        let morning = await Self.timed {
            await forEach(devices) { device in
                do {
                    let client = try device.open(network, serverURL: serverURL, configure: configure)
                    defer { try? client.close() }
                    try await device.morning(client, day)
                    outcome.withLock { $0.deviceIds[device.name] = client.deviceId }
                } catch {
                    fail(device, "morning: \(error)")
                }
            }
        }
        outcome.withLock { $0.morningSeconds = morning }

        if day.collisions > 0 {
            log("dispatcher edits \(day.collisions) jobs of every device")
            try await dispatch(editing: Set(outcome.withLock { $0.deviceIds.keys }))
        }

        log("field work offline: \(day.ops - day.jobs) edits and \(day.photos) photos per device")
        network.isOnline = false
        let fieldWork = await Self.timed {
            await forEach(devices) { device in
                do {
                    let client = try device.open(network, serverURL: serverURL, configure: configure)
                    defer { try? client.close() }
                    try await device.fieldWork(client, day)
                } catch {
                    fail(device, "field work: \(error)")
                }
            }
        }
        outcome.withLock { $0.fieldWorkSeconds = fieldWork }

        log("network back: \(devices.count) devices sync")
        networkBack()
        network.isOnline = true
        let drain = await Self.timed {
            await forEach(devices) { device in
                do {
                    let client = try device.open(network, serverURL: serverURL, configure: configure)
                    defer { try? client.close() }
                    let status = try await FleetSync.settle(client)
                    outcome.withLock { $0.issues += status.issueCount }
                    if status.pending > 0 { fail(device, "still \(status.pending) pending: \(status)") }
                } catch {
                    fail(device, "sync: \(error)")
                }
            }
        }
        return outcome.withLock { result in
            result.drainSeconds = drain
            result.network = network.totals
            return result
        }
    }

    /// The dispatcher pulls everything and changes the notes of the first jobs of each device
    /// named in `synced` (those whose morning sync finished).
    private func dispatch(editing synced: Set<String>) async throws {
        let client = try dispatcher.open(network, serverURL: serverURL)
        defer { try? client.close() }
        if try await client.user() == nil { try await client.signIn(username: dispatcher.username, password: dispatcher.password) }
        _ = try await FleetSync.settle(client)
        for device in devices where synced.contains(device.name) {
            for k in 1...day.collisions {
                try await pullUntilPresent(device.jobId(k), client)
                try await client.update("jobs", id: device.jobId(k), ["notes": .string(FleetDevice.dispatcherNotes)])
            }
        }
        let status = try await FleetSync.settle(client)
        guard status.pending == 0, status.issueCount == 0 else { throw FleetError("the dispatcher's edits did not all apply: \(status)") }
    }

    /// Syncs the dispatcher again until `jobId` is in its store. A pull serves the changes below
    /// its horizon (docs/decisions/0004): one that committed while an older writer was still
    /// running comes with a later pull. A job still absent after that is a miss, and fails the run.
    private func pullUntilPresent(_ jobId: String, _ client: SyncClient) async throws {
        for attempt in 1...20 {
            if try await client.record("jobs", id: jobId) != nil { return }
            try await Task.sleep(for: .milliseconds(100 * attempt))
            _ = try await FleetSync.settle(client)
        }
        throw FleetError("the dispatcher never received \(jobId), which its device had synced")
    }

    /// Runs `body` for every device, at most `concurrency` at once.
    private func forEach(_ items: [FleetDevice], _ body: @escaping @Sendable (FleetDevice) async -> Void) async {
        await withTaskGroup(of: Void.self) { group in
            var pending = items.makeIterator()
            for _ in 0..<max(concurrency, 1) {
                guard let item = pending.next() else { break }
                group.addTask { await body(item) }
            }
            while await group.next() != nil {
                if let item = pending.next() { group.addTask { await body(item) } }
            }
        }
    }

    static func timed(_ body: () async -> Void) async -> Double {
        let start = ContinuousClock.now
        await body()
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
}

/// A simulation that could not run as planned.
struct FleetError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
