import App
import Cryptography
import Foundation
import Storage
import Support
import SyncAPI
import SyncEngine
import SyncProtocol

/// `fieldsync bench events`: commit-to-delivery latency of the live event feed.
struct BenchEventsCommand: Command {
    let path = ["bench", "events"]
    let summary = "measure live-event latency from commit to delivery at many connected viewers"
    let valueOptions: Set<String> = ["viewers", "events", "rate"]
    let usage = """
        Usage: fieldsync bench events [--viewers 100] [--events 200] [--rate 20]

        Starts FieldSync on a throwaway embedded PostgreSQL (durable commits), connects
        --viewers field users of one team to GET /v1/events over loopback, then commits
        --events job creations by a member of that team, one transaction each, at --rate
        per second. Every viewer should receive every record.changed event. Reports the
        time from each commit's acknowledgement to its arrival at each viewer (p50/p95/p99,
        one sample per event and viewer) and the time of the committing call itself.
        """

    func run(_ arguments: CommandLineArguments, environment: Environment) throws -> Int32 {
        let viewerCount = try arguments.number("viewers", 100)
        let eventCount = try arguments.number("events", 200)
        let rate = try arguments.number("rate", 20)
        let bench = try BenchServer.start(environment: environment)
        defer { bench.stop() }
        let core = bench.application.core
        guard let hub = bench.application.feature(LiveFeedFeature.self)?.hub else { throw CommandError("the server runs no live feed") }
        let team = try BenchTeam(core: core, size: viewerCount + 1)
        let log = DeliveryLog()
        let viewers = EventFeedViewers(log: log)
        defer { viewers.close() }
        viewers.open(base: "http://127.0.0.1:\(bench.application.port)", tokens: team.tokens.dropFirst().map { $0 })
        try waitFor("\(viewerCount) viewers to connect", seconds: 30) { hub.subscriberCount == viewerCount }

        print("FieldSync live-event benchmark: \(viewerCount) viewers, \(eventCount) commits at \(rate)/s (durable commits, loopback HTTP)")
        let writes = try commit(eventCount, as: team.author, perSecond: rate, core: core, log: log)
        let expected = viewerCount * eventCount
        try? waitFor("every delivery", seconds: 10) { log.deliveredCount >= expected }
        print("delivered: \(log.deliveredCount) of \(expected) (event, viewer) pairs")
        print("commit call: \(writes.summary)")
        print("commit to delivery: \(log.latencies.summary)")
        return log.deliveredCount == expected ? 0 : 1
    }

    /// Creates one job per transaction, paced at `perSecond`; logs each commit's `serverSeq`.
    private func commit(_ count: Int, as author: Principal, perSecond: Int, core: Core, log: DeliveryLog) throws -> Latencies {
        var writes = Latencies()
        let interval = 1.0 / Double(perSecond)
        let start = Date()
        for index in 0..<count {
            let op = PushOp(
                opId: "bench-op-\(index)", clientSeq: Int64(index + 1), collection: "jobs", recordId: "bench-job-\(index)", type: .create,
                occurredAt: RFC3339.string(from: Date()), fields: ["title": FieldChange(new: .string("Job \(index)"))])
            let request = PushRequest(deviceId: author.deviceId, schemaVersion: core.schema.version, ops: [op])
            var outcome: PushOutcome?
            writes.add(try measureMilliseconds { outcome = try core.pushes.push(request, by: author) })
            guard let seq = outcome?.results.first?.serverSeq else { throw CommandError("the job was not applied: \(String(describing: outcome))") }
            log.committed(seq)
            let next = start.addingTimeInterval(Double(index + 1) * interval)
            Thread.sleep(until: next)
        }
        return writes
    }

    private func waitFor(_ what: String, seconds: Double, _ condition: () -> Bool) throws {
        let deadline = Date(timeIntervalSinceNow: seconds)
        while !condition() {
            guard Date() < deadline else { throw CommandError("timed out waiting for \(what)") }
            Thread.sleep(forTimeInterval: 0.01)
        }
    }
}

/// Field users of one team with device tokens; the first is the author of the changes.
private struct BenchTeam {
    let tokens: [String]
    let author: Principal

    init(core: Core, size: Int) throws {
        // One password hash for everyone: hashing is deliberately slow and nobody logs in here.
        let hash = try core.passwords.hash(UUID().uuidString)
        var tokens: [String] = []
        var author: Principal?
        for index in 0..<size {
            let user = try core.accounts.createUser(
                username: "bench-viewer-\(index)", role: .field, teamId: "bench-events", passwordHash: hash)
            let deviceId = "bench-device-\(index)"
            let issued = try core.accounts.issueToken(userId: user.id, deviceId: deviceId, platform: "bench", appVersion: "9.9.9", lifetime: 3600)
            tokens.append(issued.token)
            if author == nil { author = Principal(userId: user.id, role: .field, teamId: user.teamId, deviceId: deviceId) }
        }
        guard let author else { throw CommandError("a team needs at least one member") }
        self.tokens = tokens
        self.author = author
    }
}
