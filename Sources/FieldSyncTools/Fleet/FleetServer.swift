import App
import Cryptography
import Foundation
import Storage
import Support
import SyncEngine
import SyncProtocol

/// A fleet's server: FieldSync started in this process on a throwaway embedded PostgreSQL,
/// as the benchmarks do.
final class FleetServer: Sendable {
    let bench: BenchServer
    let host: FleetHost

    init(environment: Environment) throws {
        bench = try BenchServer.start(environment: environment)
        try bench.updateSettings()
        host = FleetHost(core: bench.application.core, baseURL: URL(string: "http://127.0.0.1:\(bench.application.port)/")!)
    }

    func stop() { bench.stop() }
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

/// This process's memory, from /proc (Linux).
enum ProcessMemory {
    /// Resident set size now and at its peak, in MiB; nil where /proc is absent.
    static func residentMiB() -> (now: Double, peak: Double)? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        func kilobytes(_ field: String) -> Double? {
            status.split(separator: "\n").first { $0.hasPrefix(field + ":") }
                .flatMap { Double($0.dropFirst(field.count + 1).trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "") }
        }
        guard let now = kilobytes("VmRSS"), let peak = kilobytes("VmHWM") else { return nil }
        return (now / 1024, peak / 1024)
    }
}
