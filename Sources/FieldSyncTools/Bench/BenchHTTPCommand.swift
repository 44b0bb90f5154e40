import App
import Cryptography
import Foundation
import Storage
import Support
import SyncEngine
import SyncProtocol

/// `fieldsync bench http`: drives a freshly started server with wrk over loopback.
struct BenchHTTPCommand: Command {
    let path = ["bench", "http"]
    let summary = "measure HTTP throughput with wrk (trivial route, authenticated config)"
    let valueOptions: Set<String> = ["duration", "connections", "threads"]
    let usage = """
        Usage: fieldsync bench http [--duration 10] [--connections 32] [--threads 2]

        Starts FieldSync on a throwaway embedded PostgreSQL (never DATABASE_URL) on a free
        loopback port, then runs wrk against GET /v1/health (no auth, database status
        cached for a second) and against GET /v1/config with a device token. Prints
        requests/s and p50/p99 latency. Needs wrk (apt-get install wrk).
        """

    func run(_ arguments: CommandLineArguments, environment: Environment) throws -> Int32 {
        let duration = Int(arguments.value("duration") ?? "10") ?? 10
        let connections = Int(arguments.value("connections") ?? "32") ?? 32
        let threads = Int(arguments.value("threads") ?? "2") ?? 2
        let bench = try BenchServer.start(environment: environment)
        defer { bench.stop() }
        let token = try bench.token(role: .field).token
        let base = "http://127.0.0.1:\(bench.application.port)"
        print("FieldSync HTTP benchmark: wrk -t\(threads) -c\(connections) -d\(duration)s over loopback")
        for (name, url, headers) in [
            ("GET /v1/health (trivial)", "\(base)/v1/health", [String]()),
            ("GET /v1/config (bearer)", "\(base)/v1/config", ["Authorization: Bearer \(token)"]),
        ] {
            let result = try Wrk.run(url: url, headers: headers, threads: threads, connections: connections, seconds: duration)
            print("\(name): \(result)")
        }
        return 0
    }
}

/// A server started for a benchmark on a temporary data folder, removed afterwards.
final class BenchServer: Sendable {
    let application: Application
    let directory: URL

    /// The password of the `admin` account the server creates on its first start.
    static let adminPassword = "bench-admin-password"

    private init(application: Application, directory: URL) {
        self.application = application
        self.directory = directory
    }

    /// - Parameter configure: adjusts the configuration before the start.
    static func start(environment: Environment, configure: (inout AppConfiguration) -> Void = { _ in }) throws -> BenchServer {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fieldsync-bench-\(UUID().uuidString)")
        var configuration = try AppConfiguration.load(arguments: try CommandLineArguments([], valueOptions: []), environment: environment)
        configuration.dataDirectory = directory
        // Always a throwaway embedded cluster: a benchmark never writes users into a real database.
        configuration.databaseURL = nil
        configuration.database = nil
        configuration.port = 0
        configuration.adminPassword = Self.adminPassword
        // Every benchmark client connects from 127.0.0.1: the per-address limits, meant for one
        // client each, would turn a simulated fleet away.
        configuration.connections.perAddress = 0
        configuration.connections.spoolBytesPerAddress = configuration.connections.spoolBytes
        configure(&configuration)
        let logger = Logger(label: "fieldsync.bench", level: .warning)
        return BenchServer(application: try Application.start(configuration, logger: logger), directory: directory)
    }

    /// A device token (and its device id) for a new user of the given role.
    func token(role: Role, team: String = "bench") throws -> (token: String, deviceId: String) {
        let core = application.core
        let user = try core.accounts.createUser(
            username: "bench-\(role.rawValue)-\(UUID().uuidString.prefix(8))", role: role, teamId: team,
            passwordHash: try core.passwords.hash(UUID().uuidString))
        let deviceId = "bench-\(user.id)"
        let issued = try core.accounts.issueToken(userId: user.id, deviceId: deviceId, platform: "bench", appVersion: "9.9.9", lifetime: 3600)
        return (issued.token, deviceId)
    }

    /// Lifts the per-device rate limits (simulated devices send far faster than real ones),
    /// then applies `adjust` and stores the settings.
    func updateSettings(_ adjust: (inout ServerSettings) -> Void = { _ in }) throws {
        try Self.updateSettings(of: application.core, adjust)
    }

    /// Lifts the per-device rate limits of the server `core` belongs to (any process on its
    /// database hears of it), then applies `adjust`.
    static func updateSettings(of core: Core, _ adjust: (inout ServerSettings) -> Void = { _ in }) throws {
        let settings = core.settings
        var current = try settings.current()
        current.deviceRequestsPerSecond = 1_000_000
        current.deviceRequestBurst = 1_000_000
        adjust(&current)
        try settings.update(current, by: nil)
    }

    /// The embedded PostgreSQL's data folder.
    var databaseDirectory: URL { directory.appendingPathComponent("postgres") }

    func stop() {
        application.shutdown()
        try? FileManager.default.removeItem(at: directory)
    }
}

/// Runs wrk and extracts its throughput and latency percentiles.
enum Wrk {
    struct Result: CustomStringConvertible {
        let requestsPerSecond: String
        let p50: String
        let p99: String
        let errors: String?
        var description: String {
            "\(requestsPerSecond) req/s, p50 \(p50), p99 \(p99)\(errors.map { ", \($0)" } ?? "")"
        }
    }

    static func run(url: String, headers: [String], threads: Int, connections: Int, seconds: Int) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments =
            ["wrk", "-t\(threads)", "-c\(connections)", "-d\(seconds)s", "--latency"]
            + headers.flatMap { ["-H", $0] } + [url]
        let pipe = Pipe()
        process.standardOutput = pipe
        do {
            try process.run()
        } catch {
            throw CommandError("cannot run wrk (apt-get install wrk): \(error)")
        }
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw CommandError("wrk failed:\n\(output)") }
        func field(_ prefix: String) -> String {
            output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
                .first { $0.hasPrefix(prefix) }?.dropFirst(prefix.count).trimmingCharacters(in: .whitespaces) ?? "?"
        }
        let errors = output.split(separator: "\n").first { $0.contains("Non-2xx") || $0.contains("Socket errors") }
        return Result(
            requestsPerSecond: field("Requests/sec:"), p50: field("50%"), p99: field("99%"),
            errors: errors.map { $0.trimmingCharacters(in: .whitespaces) })
    }
}
