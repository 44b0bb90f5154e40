import App
import FieldSyncClient
import Foundation
import Support

/// `fieldsync simulate`: a fleet of SDK devices works a field day against a fresh server,
/// which is then checked for every intent, exactly once.
struct SimulateCommand: Command {
    let path = ["simulate"]
    let summary = "run a fleet of SDK devices through a field day and verify the server lost nothing"
    let valueOptions = FieldDay.options.union(["devices", "concurrency"])
    let usage = """
        Usage: fieldsync simulate [--devices 20] [--concurrency 64] [--scale 1] [day options]

        Starts FieldSync on a throwaway embedded PostgreSQL, creates a dispatcher and --devices
        field users in teams of \(FleetHost.teamSize), and gives each a device: the FieldSyncClient
        SDK with its own SQLite file. Compressed in time, each device works a field day:
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
        \(FieldDay.help)
        """

    func run(_ arguments: CommandLineArguments, environment: Environment) throws -> Int32 {
        let devices = try arguments.number("devices", 20)
        let concurrency = try arguments.number("concurrency", 64)
        let day = try FieldDay(arguments)
        let report = try Simulation.run(devices: devices, concurrency: concurrency, day: day, environment: environment) {
            print($0)
            // Progress shows as it happens, also when the output is a file.
            fflush(nil)
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
        let memory: (now: Double, peak: Double)?

        var table: String { SimulationTable(report: self).text }
    }

    /// Starts a server and runs the fleet on it (see `run(on:…)`).
    static func run(
        devices count: Int, concurrency: Int, day: FieldDay, environment: Environment, route: (@Sendable (URL) throws -> URL)? = nil,
        transport: (any HTTPTransport)? = nil, networkBack: @escaping @Sendable () -> Void = {}, log: @escaping @Sendable (String) -> Void
    ) throws -> Report {
        let server = try FleetServer(environment: environment)
        defer { server.stop() }
        return try blocking {
            try await run(
                on: server.host, devices: count, concurrency: concurrency, day: day, route: route, transport: transport, networkBack: networkBack,
                log: log)
        }
    }

    /// Creates the fleet's accounts on `host`, runs the day (through `route` when given: it
    /// turns the server's URL into the one devices use, e.g. a relay's; over `transport`,
    /// URLSession by default) and verifies.
    static func run(
        on host: FleetHost, devices count: Int, concurrency: Int, day: FieldDay, route: (@Sendable (URL) throws -> URL)? = nil,
        transport: (any HTTPTransport)? = nil, networkBack: @escaping @Sendable () -> Void = {}, log: @escaping @Sendable (String) -> Void
    ) async throws -> Report {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fieldsync-fleet-\(host.run)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let (devices, dispatcher) = try host.makeFleet(count, in: folder)
        let url = try route?(host.baseURL) ?? host.baseURL
        let fleet = FleetRun(
            serverURL: url, devices: devices, dispatcher: dispatcher, day: day, concurrency: concurrency,
            network: FleetNetwork(bases: transport.map { [$0] } ?? (0..<min(count, 32)).map { _ in URLSessionTransport(timeout: 120) }))
        let outcome = try await fleet.run(log: log, networkBack: networkBack)
        log("verifying on the server")
        let verdict = try host.verifier(day).verify(devices, deviceIds: outcome.deviceIds)
        return Report(
            devices: count, fleet: devices, concurrency: concurrency, day: day, outcome: outcome, verdict: verdict,
            memory: ProcessMemory.residentMiB())
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
