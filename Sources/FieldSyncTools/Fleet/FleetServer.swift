import App
import Cryptography
import Foundation
import Storage
import Support
import SyncEngine
import SyncProtocol

/// A fleet's server: FieldSync started in this process on a throwaway embedded PostgreSQL,
/// as the benchmarks do, or one running in a process of its own (so that its memory is its
/// own), reached through its database for accounts and the verdict.
final class FleetServer: Sendable {
    let host: FleetHost
    /// Whether the server runs in this process (its memory then includes the devices').
    let inProcess: Bool
    private let shutdown: @Sendable () -> Void

    init(environment: Environment) throws {
        let bench = try BenchServer.start(environment: environment)
        try bench.updateSettings()
        host = FleetHost(core: bench.application.core, baseURL: URL(string: "http://127.0.0.1:\(bench.application.port)/")!)
        inProcess = true
        shutdown = { bench.stop() }
    }

    /// The FieldSync serving `url` in another process, whose database this process opens as
    /// `fieldsync user` does (`DATABASE_URL`, or the embedded cluster of `--data-dir`, left
    /// running). Its per-device rate limits are lifted.
    init(external url: URL, arguments: CommandLineArguments, environment: Environment) throws {
        // Without them this process would start a database of its own, which the server never sees.
        guard arguments.value("data-dir") != nil || environment["FIELDSYNC_DATA_DIR"] != nil || environment["DATABASE_URL"] != nil else {
            throw CommandError("--server needs the server's database: DATABASE_URL, or the --data-dir it serves from")
        }
        let configuration = try AppConfiguration.load(arguments: arguments, environment: environment)
        let logger = Logger(label: "fieldsync.simulate", level: .warning)
        let database = try DatabaseHost.open(configuration, logger: logger)
        let core: Core
        do {
            core = try Core.open(configuration, database: database.configuration, logger: logger)
            try BenchServer.updateSettings(of: core)
        } catch {
            try? database.close()
            throw error
        }
        host = FleetHost(core: core, baseURL: url)
        inProcess = false
        shutdown = {
            core.close()
            try? database.close()
        }
    }

    func stop() { shutdown() }
}

/// A running FieldSync of this process, seen by a fleet: its teams and users are created
/// through its account service (the one `fieldsync user add` uses), and its own records
/// (op journal, records, conflict queue) are what the fleet is verified against.
struct FleetHost: Sendable {
    let core: Core
    let baseURL: URL
    /// The run's tag, in front of user names and record ids.
    let run = "s" + UUID().uuidString.prefix(6).lowercased()

    /// The password of every simulated user.
    static let password = "field-day-password"
    /// Devices per team.
    static let teamSize = 25

    /// Creates `count` field users in teams of `teamSize` and a dispatcher; returns their
    /// devices, with databases in `folder`.
    func makeFleet(_ count: Int, in folder: URL) throws -> (devices: [FleetDevice], dispatcher: FleetDevice) {
        // The hash names its own work factor: simulated users sign in without the full cost.
        let hash = try PasswordHasher(iterations: 1_000).hash(Self.password)
        func device(_ name: String, role: Role, team: String?) throws -> FleetDevice {
            _ = try core.accounts.createUser(username: "\(run)-\(name)", role: role, teamId: team, passwordHash: hash)
            return FleetDevice(
                name: "\(run)-\(name)", username: "\(run)-\(name)", password: Self.password,
                databasePath: folder.appendingPathComponent("\(name).sqlite").path, cameraFolder: folder)
        }
        let devices = try (1...max(count, 1)).map { n in try device("d\(n)", role: .field, team: "\(run)-team-\((n - 1) / Self.teamSize + 1)") }
        return (devices, try device("dispatcher", role: .dispatcher, team: nil))
    }

    /// Reads the server's own record of the day.
    func verifier(_ day: FieldDay) -> FleetVerifier {
        FleetVerifier(journal: PostgresSyncCentreStore(database: core.database), conflicts: PostgresConflictStore(database: core.database), day: day)
    }
}

/// A process's memory, from /proc (Linux).
enum ProcessMemory {
    /// Resident set size now and at its peak, in MiB, of this process or the one `pid`
    /// names; nil where /proc is absent or the process is gone.
    static func residentMiB(pid: Int? = nil) -> (now: Double, peak: Double)? {
        let path = "/proc/\(pid.map(String.init) ?? "self")/status"
        guard let status = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        func kilobytes(_ field: String) -> Double? {
            status.split(separator: "\n").first { $0.hasPrefix(field + ":") }
                .flatMap { Double($0.dropFirst(field.count + 1).trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "") }
        }
        guard let now = kilobytes("VmRSS"), let peak = kilobytes("VmHWM") else { return nil }
        return (now / 1024, peak / 1024)
    }
}
