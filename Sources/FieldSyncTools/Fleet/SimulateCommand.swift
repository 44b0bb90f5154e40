import App
import FieldSyncClient
import Foundation
import Support

/// `fieldsync simulate`: a fleet of SDK devices works a field day against a fresh server,
/// which is then checked for every intent, exactly once.
struct SimulateCommand: Command {
    let path = ["simulate"]
    let summary = "run a fleet of SDK devices through a field day and verify the server lost nothing"
    let valueOptions = FieldDay.options.union(["devices", "concurrency", "server", "server-pid", "data-dir"])
    let usage = """
        Usage: fieldsync simulate [--devices 20] [--concurrency 64] [--server URL [--server-pid PID]] [--scale 1] [day options]

        Starts FieldSync on a throwaway embedded PostgreSQL (or uses the one at --server),
        creates a dispatcher and --devices field users in teams of \(FleetHost.teamSize), and gives
        each a device: the FieldSyncClient SDK with its own SQLite file. Compressed in time, each device works a field day:
          morning   signs in, creates its jobs, syncs;
          office    a dispatcher changes the notes of some of those jobs;
          offline   visits (check-in, work, check-out), reports with photos, orders, status
                    updates and its own notes on the dispatcher's jobs; sync attempts fail;
          evening   the network returns for every device at once; each syncs until done.
        At most --concurrency devices work or sync at the same moment. Then the server's op
        journal, records and conflict queue are checked: every op once, every record as the
        device left it, every collision an open conflict. Prints a summary; exits 1 on any loss.

        Options:
          --devices N        simulated devices (default 20)
          --concurrency N    devices active at once (default 64)
          --server URL       a FieldSync already running in its own process (e.g.
                             http://127.0.0.1:8080/), so that its memory is measured apart from
                             the devices'; its database is opened as `fieldsync user` does
                             (DATABASE_URL, or the embedded cluster of --data-dir / FIELDSYNC_DATA_DIR)
                             for the accounts and the verdict; its rate limits are lifted
          --server-pid PID   that server's process: its memory is reported too (Linux)
        \(FieldDay.help)
        """

    func run(_ arguments: CommandLineArguments, environment: Environment) throws -> Int32 {
        let devices = try arguments.number("devices", 20)
        let concurrency = try arguments.number("concurrency", 64)
        let day = try FieldDay(arguments)
        let log: @Sendable (String) -> Void = {
            print($0)
            // Progress shows as it happens, also when the output is a file.
            fflush(nil)
        }
        let report: Simulation.Report
        if let address = arguments.value("server") {
            guard let url = URL(string: address), url.scheme == "http" || url.scheme == "https", url.host != nil else {
                throw CommandError("--server must be a server's URL, e.g. http://127.0.0.1:8080/")
            }
            let pid: Int? = arguments.value("server-pid") != nil ? try arguments.number("server-pid", 1) : nil
            let server = try FleetServer(external: url, arguments: arguments, environment: environment)
            defer { server.stop() }
            report = try Simulation.blocking {
                try await Simulation.run(
                    on: server.host, devices: devices, concurrency: concurrency, day: day, serverInProcess: false, serverPid: pid, log: log)
            }
        } else {
            report = try Simulation.run(devices: devices, concurrency: concurrency, day: day, environment: environment, log: log)
        }
        print(report.table)
        return report.verdict.isExact && report.outcome.failures.isEmpty ? 0 : 1
    }
}

/// One simulated day from start to verdict, shared by `simulate` and the link benchmark.
enum Simulation {
    struct Report: Sendable {
        let devices: Int
        /// The devices, as the verifier knows them.
        let fleet: [FleetDevice]
        let concurrency: Int
        let day: FieldDay
        let outcome: FleetRun.Outcome
        let verdict: FleetVerifier.Verdict
        /// This process's memory.
        let memory: (now: Double, peak: Double)?
        let serverInProcess: Bool
        /// The server's memory, when it runs in a process of its own that was named.
        let serverMemory: (now: Double, peak: Double)?

        var table: String { SimulationTable(report: self).text }
    }

    /// Starts a server and runs the fleet on it (see `run(on:…)`).
    static func run(
        devices count: Int, concurrency: Int, day: FieldDay, environment: Environment, route: (@Sendable (URL) throws -> URL)? = nil,
        transport: (any HTTPTransport)? = nil, configure: @escaping @Sendable (inout SyncClient.Configuration) -> Void = { _ in },
        networkBack: @escaping @Sendable () -> Void = {}, log: @escaping @Sendable (String) -> Void
    ) throws -> Report {
        let server = try FleetServer(environment: environment)
        defer { server.stop() }
        return try blocking {
            try await run(
                on: server.host, devices: count, concurrency: concurrency, day: day, route: route, transport: transport, configure: configure,
                networkBack: networkBack, log: log)
        }
    }

    /// Creates the fleet's accounts on `host`, runs the day (through `route` when given: it
    /// turns the server's URL into the one devices use, e.g. a relay's; over `transport`,
    /// URLSession by default, each device's SDK configured by `configure`) and verifies.
    static func run(
        on host: FleetHost, devices count: Int, concurrency: Int, day: FieldDay, route: (@Sendable (URL) throws -> URL)? = nil,
        transport: (any HTTPTransport)? = nil, configure: @escaping @Sendable (inout SyncClient.Configuration) -> Void = { _ in },
        serverInProcess: Bool = true, serverPid: Int? = nil, networkBack: @escaping @Sendable () -> Void = {},
        log: @escaping @Sendable (String) -> Void
    ) async throws -> Report {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fieldsync-fleet-\(host.run)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let (devices, dispatcher) = try host.makeFleet(count, in: folder)
        let url = try route?(host.baseURL) ?? host.baseURL
        let fleet = FleetRun(
            serverURL: url, devices: devices, dispatcher: dispatcher, day: day, concurrency: concurrency,
            network: FleetNetwork(bases: transport.map { [$0] } ?? (0..<min(count, 32)).map { _ in URLSessionTransport(timeout: 120) }),
            configure: configure)
        let outcome = try await fleet.run(log: log, networkBack: networkBack)
        log("verifying on the server")
        let verdict = try host.verifier(day).verify(devices, deviceIds: outcome.deviceIds)
        return Report(
            devices: count, fleet: devices, concurrency: concurrency, day: day, outcome: outcome, verdict: verdict,
            memory: ProcessMemory.residentMiB(), serverInProcess: serverInProcess,
            serverMemory: serverPid.flatMap { ProcessMemory.residentMiB(pid: $0) })
    }

    /// Runs async work from a synchronous command and waits for it.
    static func blocking<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: Result<T, any Error>?
        Task {
            do { result = .success(try await work()) } catch { result = .failure(error) }
            done.signal()
        }
        done.wait()
        return try result!.get()
    }
}
