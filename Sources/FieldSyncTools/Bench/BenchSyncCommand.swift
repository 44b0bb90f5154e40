import App
import Foundation
import Seeding
import Storage
import Support
import SyncProtocol
import Synchronization

/// `fieldsync bench sync`: push throughput, pull page cost on a large database, replay cost.
struct BenchSyncCommand: Command {
    let path = ["bench", "sync"]
    let summary = "measure push ops/s, pull pages and replays over loopback"
    let valueOptions: Set<String> = ["devices", "batches", "records", "users", "pulls", "pullers", "curve", "curve-batches"]
    let flagOptions: Set<String> = ["help", "pull-only", "statements"]
    let usage = """
        Usage: fieldsync bench sync [--devices 8] [--batches 200] [--records 1000000] [--users 1000] [--pulls 200] [--pullers 1]
                                    [--curve 1,8,32,128] [--curve-batches 320] [--pull-only] [--statements]

        Starts FieldSync on a throwaway embedded PostgreSQL (durable commits) and measures:
          1. push: --devices concurrent devices each push --batches batches of 50 ops
             (half creates, half updates of the previous batch's records): ops/s and
             per-batch time p50/p95/p99;
          2. replay of already-applied batches: per-batch time;
          3. the push curve: for each --curve count of new concurrent devices, --curve-batches
             batches shared among them (at least 2 each): ops/s and batch p95 (empty: skipped);
             The first run also reports the CPU seconds per 1,000 ops of the server
             (the benchmark's client threads left out) and of PostgreSQL, and the
             write-ahead log PostgreSQL wrote per op (records, bytes, full-page images);
          4. pull: --records jobs over --users users are loaded (every field's metadata naming
             its op and device), then --pulls pages of 500 are pulled by sampled users'
             devices, --pullers of them at once, once per encoding: plain, gzip, and compact
             field metadata with gzip. For each: records/s (one puller: over the sum of page
             times, the server's time alone; several: over the wall clock), page time (first
             pages apart), and bytes per record on the wire against the payload JSON's own bytes.
        --pull-only skips 1 to 3.
        --statements also prints PostgreSQL's costliest statements (pg_stat_statements) of
        the push (1), the replays (2) and the pulls (4).
        Times are measured at the client over loopback, so they include HTTP.
        """

    func run(_ arguments: CommandLineArguments, environment: Environment) throws -> Int32 {
        let devices = try arguments.number("devices", 8)
        let batches = try arguments.number("batches", 200)
        let records = try arguments.number("records", 1_000_000)
        let users = try arguments.number("users", 1_000)
        let pulls = try arguments.number("pulls", 200)
        let pullers = try arguments.number("pullers", 1)
        guard (1...256).contains(pullers) else { throw CommandError("--pullers takes 1 to 256 devices") }
        let curveBatches = try arguments.number("curve-batches", 320)
        let curve = try (arguments.value("curve") ?? "1,8,32,128").split(separator: ",").map { text in
            guard let count = Int(text), (1...1_000).contains(count) else { throw CommandError("--curve takes device counts from 1 to 1000") }
            return count
        }
        let profiled = arguments.has("statements")
        let bench = try BenchServer.start(environment: environment) { configuration in
            if profiled { configuration.embeddedClusterSettings = StatementStatistics.clusterSettings }
        }
        defer { bench.stop() }
        try bench.updateSettings()
        let profile = profiled ? StatementProfile(statistics: StatementStatistics(database: bench.application.core.database)) : nil
        let port = bench.application.port
        print("FieldSync sync benchmark (durable commits, loopback HTTP)")
        if !arguments.has("pull-only") {
            let pushers = try (0..<devices).map { _ in
                let credentials = try bench.token(role: .field)
                return try PushingDevice(token: credentials.token, deviceId: credentials.deviceId, port: port)
            }
            try profile?.reset()
            try benchmarkPush(pushers, batches: batches, measuring: bench)
            if let profile { print(try profile.report("push")) }
            try profile?.reset()
            try benchmarkReplay(pushers[0], batches: min(batches, 100))
            if let profile { print(try profile.report("replay")) }
            for count in curve {
                let devices = try (0..<count).map { _ in
                    let credentials = try bench.token(role: .field)
                    return try PushingDevice(token: credentials.token, deviceId: credentials.deviceId, port: port)
                }
                try benchmarkPush(devices, batches: max(2, curveBatches / count), label: "push curve")
            }
        }
        try benchmarkPull(bench, records: records, users: users, pulls: pulls, pullers: pullers, profile: profile)
        return 0
    }

    /// - Parameter bench: the benchmark's server, to report CPU and write-ahead log per op; nil: not reported.
    private func benchmarkPush(_ pushers: [PushingDevice], batches: Int, label: String? = nil, measuring bench: BenchServer? = nil) throws {
        let latencies = Mutex(Latencies())
        let failures = Mutex<[String]>([])
        let clientCPU = Mutex(0.0)
        let logBefore = try bench.map { try WALVolume.read($0.application.core.database) }
        let before = bench.map { CPUClock.sample(databaseDirectory: $0.databaseDirectory) }
        let seconds =
            measureMilliseconds {
                onThreads(pushers.count) { index in
                    let start = CPUClock.currentThread()
                    do {
                        let local = try pushers[index].push(batches: batches)
                        latencies.withLock { $0.add(contentsOf: local) }
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                    clientCPU.withLock { $0 += CPUClock.currentThread() - start }
                }
            } / 1000
        if let failure = failures.withLock({ $0.first }) { throw CommandError("push failed: \(failure)") }
        let ops = pushers.count * batches * 50
        let cpuUsed = bench.map { CPUClock.sample(databaseDirectory: $0.databaseDirectory) }
        let logAfter = try bench.map { try WALVolume.read($0.application.core.database) }
        let summary = latencies.withLock { $0 }.summary
        if let label {
            print("\(label): \(pushers.count) devices: \(String(format: "%.0f", Double(ops) / seconds)) ops/s, batch time \(summary)")
            return
        }
        print(
            String(
                format: "push: %d devices x %d batches of 50 = %d ops in %.1f s: %.0f ops/s", pushers.count, batches, ops, seconds,
                Double(ops) / seconds))
        print("push batch time: \(summary)")
        if let cpuUsed, let before {
            let used = cpuUsed - before
            let perThousand = 1_000 / Double(ops)
            let server = (used.process - clientCPU.withLock { $0 }) * perThousand
            let database = used.database * perThousand
            print(
                String(
                    format: "push CPU per 1,000 ops: server %.3f s + PostgreSQL %.3f s = %.3f s (the benchmark's client threads left out)",
                    server, database, server + database))
        }
        if let logAfter, let logBefore {
            let logWritten = logAfter - logBefore
            print(
                String(
                    format: "push write-ahead log per op: %.1f records, %.0f bytes (%.1f full-page images per 1,000 ops)",
                    Double(logWritten.records) / Double(ops), Double(logWritten.bytes) / Double(ops),
                    Double(logWritten.fullPageImages) * 1_000 / Double(ops)))
        }
    }

    private func benchmarkReplay(_ device: PushingDevice, batches: Int) throws {
        print("replay of applied batches: \(try device.replay(batches: batches).summary)")
    }

    private func benchmarkPull(_ bench: BenchServer, records: Int, users: Int, pulls: Int, pullers: Int, profile: StatementProfile?) throws {
        let core = bench.application.core
        let seeder = BenchmarkSeeder(database: core.database)
        let loadTime = try measureMilliseconds {
            _ = try seeder.seed(users: users, records: records)
            try seeder.analyze()
        }
        print(String(format: "pull: loaded %d records over %d users in %.1f s", records, users, loadTime / 1000))
        try profile?.reset()
        for mode in PullMode.allCases {
            let puller = PullBench(port: bench.application.port, mode: mode, users: users) { user in
                try core.accounts.issueToken(
                    userId: "u-seed-\(user * 37 % users)", deviceId: "bench-pull-\(user)", platform: nil, appVersion: nil, lifetime: 3600
                ).token
            }
            print(try puller.run(pages: pulls, pullers: pullers, databaseDirectory: bench.databaseDirectory).summary)
        }
        if let profile { print(try profile.report("pull (all encodings)")) }
    }
}

/// One simulated device pushing batches of 50 ops over a keep-alive connection of its own,
/// from one thread at a time.
private final class PushingDevice: Sendable {
    let token: String
    let deviceId: String
    private let connection: LoopbackConnection
    private let sentBatches = Mutex<[Data]>([])

    init(token: String, deviceId: String, port: Int) throws {
        self.token = token
        self.deviceId = deviceId
        connection = try LoopbackConnection(port: port)
    }

    /// Posts a push body and waits for the answer: its status and body.
    private func send(_ body: Data) throws -> (status: Int, body: Data) {
        let head = """
            POST /v1/sync/push HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\nX-App-Version: 9.9.9\r\n\
            Content-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n
            """
        let answer = try connection.exchange(Data(head.utf8) + body)
        return (answer.status, answer.body)
    }

    func push(batches: Int) throws -> Latencies {
        var latencies = Latencies()
        var clientSeq: Int64 = 0
        var previous: [(recordId: String, seq: Int64)] = []
        let now = RFC3339.string(from: Date())
        for batch in 0..<batches {
            var ops: [PushOp] = []
            for index in 0..<25 {
                clientSeq += 1
                ops.append(
                    PushOp(
                        opId: "\(deviceId)-\(clientSeq)", clientSeq: clientSeq, collection: "jobs", recordId: "\(deviceId)-job-\(batch)-\(index)",
                        type: .create, occurredAt: now,
                        fields: [
                            "title": FieldChange(old: nil, new: .string("Job \(batch)-\(index)")),
                            "status": FieldChange(old: nil, new: "in_progress"),
                        ]))
            }
            for (recordId, seq) in previous.prefix(25) {
                clientSeq += 1
                ops.append(
                    PushOp(
                        opId: "\(deviceId)-\(clientSeq)", clientSeq: clientSeq, collection: "jobs", recordId: recordId, type: .update,
                        baseServerSeq: seq, occurredAt: now, fields: ["labor_minutes": FieldChange(old: nil, new: .int(Int64(batch)))]))
            }
            while ops.count < 50 {
                clientSeq += 1
                ops.append(
                    PushOp(
                        opId: "\(deviceId)-\(clientSeq)", clientSeq: clientSeq, collection: "jobs", recordId: "\(deviceId)-extra-\(clientSeq)",
                        type: .create, occurredAt: now, fields: ["title": FieldChange(old: nil, new: "Extra")]))
            }
            let body = try JSONEncoder().encode(PushRequest(deviceId: deviceId, schemaVersion: 3, ops: ops))
            var answer: (status: Int, body: Data) = (0, Data())
            latencies.add(try measureMilliseconds { answer = try send(body) })
            guard answer.status == 200 else { throw CommandError("push answered \(answer.status): \(String(decoding: answer.body, as: UTF8.self))") }
            let results = try JSONDecoder().decode(PushResponse.self, from: answer.body).results
            guard results.allSatisfy({ $0.status == .applied }) else {
                throw CommandError("not every op applied: \(results.first { $0.status != .applied }!)")
            }
            previous = zip(ops, results).prefix(25).map { ($0.0.recordId, $0.1.serverSeq ?? 0) }
            sentBatches.withLock { $0.append(body) }
        }
        return latencies
    }

    func replay(batches: Int) throws -> Latencies {
        var latencies = Latencies()
        for body in sentBatches.withLock({ $0.prefix(batches) }) {
            var answer: (status: Int, body: Data) = (0, Data())
            latencies.add(try measureMilliseconds { answer = try send(body) })
            guard answer.status == 200 else { throw CommandError("replay answered \(answer.status)") }
        }
        return latencies
    }
}
