import AppTesting
import Foundation
import Postgres
import Support
import SyncEngine
import SyncProtocol
import Testing

/// A writer whose transaction stays open while others commit (docs/decisions/0004): pulls are
/// ordered by writing transaction, so none may page past the slow one's change.
@Suite("Sync with a slow writer")
struct SyncSlowWriterTests {
    /// How long the slow writer's transaction stays open while the others push.
    static let holding: Duration = .seconds(3)

    @Test("A push held open for seconds while others commit and pagers page: every pager gets its change, none twice, none going back")
    func slowWriter() async throws {
        let server = try await TestServer.startSync(poolSize: 4)
        defer { server.finish() }
        try server.updateSettings {
            $0.deviceRequestsPerSecond = 100_000
            $0.deviceRequestBurst = 100_000
        }
        let slow = try await server.device(team: "north")
        var fast: [SyncDevice] = []
        for _ in 0..<2 { fast.append(try await server.device(team: "north")) }
        let pagers = [try await server.device(.supervisor, team: "north"), try await server.device(.dispatcher, team: nil)]
        // The slow push opens its transaction (its device row gives it a transaction id), then
        // waits for the record's lock, held here, so it commits seconds after the others.
        let holder = try PostgresConnection(configuration: server.database, logger: Logger(label: "test", level: .warning))
        defer { holder.close() }
        try holder.executeScript("BEGIN")
        try holder.execute("SELECT pg_advisory_xact_lock(hashtextextended('jobs/job-slow', 0))")
        let stop = StopFlag()

        let (slowResult, fastResults, logs) = try await withThrowingTaskGroup(of: SlowRaceResult.self) { group in
            group.addTask { .slow(try await slow.push1(slow.create("jobs", "job-slow", ["title": "slow"]))) }
            let waiting = try await eventually(within: .seconds(30), every: .milliseconds(10)) { () -> Bool? in
                try Self.waitingOnLock(holder) ? true : nil
            }
            #expect(waiting == true, "the slow push waits for the record")
            for (index, device) in fast.enumerated() {
                group.addTask { .fast(try await Self.createJobs(device, prefix: "job-fast-\(index)", for: Self.holding)) }
            }
            for pager in pagers {
                group.addTask { .pulled(try await RacePager(device: pager).run(until: stop)) }
            }
            var slowResult: OpResult?
            var fastResults: [OpResult] = []
            var logs: [RacePager] = []
            var fastLeft = fast.count
            for try await result in group {
                switch result {
                case .fast(let results):
                    fastResults += results
                    fastLeft -= 1
                    // The others have committed for seconds: now the slow writer may go on.
                    if fastLeft == 0 { try holder.executeScript("COMMIT") }
                case .slow(let result):
                    slowResult = result
                    stop.raise()
                case .pulled(let log):
                    logs.append(log)
                }
            }
            return (slowResult, fastResults, logs)
        }

        #expect(slowResult?.status == .applied)
        #expect(fastResults.count > 20 && fastResults.allSatisfy { $0.status == .applied })
        for log in logs {
            #expect(log.violations.isEmpty, "\(log.violations.prefix(5))")
            #expect(log.replica.records["jobs/job-slow"] != nil, "pager \(log.device.user.role) skipped the slow writer's change")
            #expect(log.replica == Replica(try await log.device.drain().changes), "pager \(log.device.user.role)")
            #expect(log.replica.records.count == fastResults.count + 1)
        }
    }

    /// Whether another session waits for a lock.
    private static func waitingOnLock(_ holder: PostgresConnection) throws -> Bool {
        try holder.query(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )[0].decode(0, as: Int.self) > 0
    }

    /// Creates jobs five at a time for `duration`.
    private static func createJobs(_ device: SyncDevice, prefix: String, for duration: Duration) async throws -> [OpResult] {
        let deadline = ContinuousClock.now + duration
        var results: [OpResult] = []
        var round = 0
        while ContinuousClock.now < deadline {
            round += 1
            results += try await device.push((0..<5).map { device.create("jobs", "\(prefix)-\(round)-\($0)", ["title": "fast"]) })
        }
        return results
    }
}

/// What a task of the slow-writer race reports.
private enum SlowRaceResult: Sendable {
    case slow(OpResult)
    case fast([OpResult])
    case pulled(RacePager)
}
