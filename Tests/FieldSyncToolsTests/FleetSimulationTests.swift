import App
import AppTesting
import Foundation
import Storage
import SyncEngine
import Testing

@testable import FieldSyncTools

/// A small fleet of real SDK devices works a field day against a real server; the server's
/// journal, records and conflict queue are then checked, as `fieldsync simulate` does.
@Suite("Fleet simulation")
struct FleetSimulationTests {
    /// A day of every kind of work, small enough for a test.
    static let day: FieldDay = {
        var day = FieldDay()
        (day.jobs, day.visits, day.reports, day.photoBytes, day.orders, day.statusUpdates, day.collisions) = (4, 3, 2, 40_000, 2, 12, 1)
        return day
    }()

    @Test("Devices work offline, sync when the network returns; the server holds each op once, every record, every collision as an open conflict")
    func exactlyOnce() async throws {
        let server = try await Self.server()
        defer { server.stop() }
        let host = FleetHost(core: server.core, baseURL: server.baseURL)

        let report = try await Simulation.run(on: host, devices: 3, concurrency: 3, day: Self.day, log: { _ in })

        #expect(report.outcome.failures.isEmpty, "\(report.table)")
        #expect(report.verdict.isExact, "\(report.table)")
        #expect(report.verdict.opsOnServer == 3 * Self.day.ops && report.verdict.duplicates == 0 && report.verdict.missing == 0)
        #expect(report.verdict.conflicts == 3 && report.verdict.conflictsInQueue == 3)
        #expect(report.verdict.photos == 3 * Self.day.photos)
        // Sync attempts made while offline failed without reaching the server.
        #expect(report.outcome.network.failedRequests > 0)
        #expect(report.table.contains("result: every intent exactly once, nothing lost"))

        // The same check against a day with one more status update finds it missing on every device.
        var longer = Self.day
        longer.statusUpdates += 1
        let verdict = try host.verifier(longer).verify(report.fleet, deviceIds: report.outcome.deviceIds)
        #expect(!verdict.isExact && verdict.missing == 3 && verdict.recordsWrong >= 3, "\(verdict.problems)")
    }

    @Test("simulate refuses a day it cannot run, before starting anything")
    func badOptions() async throws {
        let output = try await FieldSyncCLI.run(["simulate", "--collisions", "10"])
        let scale = try await FieldSyncCLI.run(["simulate", "--scale", "2"])

        #expect(output.status == 1 && output.standardError == "fieldsync-tools: --collisions must be at most 9\n", "\(output)")
        #expect(scale.status == 1 && scale.standardError.contains("--scale must be a number above 0 and at most 1"), "\(scale)")
    }

    /// A test server without the per-device rate limit (simulated devices send faster than people).
    static func server() async throws -> TestServer {
        let server = try await TestServer.start { $0.databasePoolSize = 4 }
        var settings = try server.core.settings.current()
        (settings.deviceRequestsPerSecond, settings.deviceRequestBurst) = (1_000_000, 1_000_000)
        _ = try server.core.settings.update(settings, by: nil)
        return server
    }
}
