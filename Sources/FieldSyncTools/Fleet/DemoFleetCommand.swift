import App
import FieldSyncClient
import Foundation
import Support

/// `fieldsync-tools demo-fleet`: the simulated fleet of `fieldsync serve --demo`, run against
/// that server with the accounts it created, one small field day after another.
struct DemoFleetCommand: Command {
    let path = ["demo-fleet"]
    let summary = "the simulated fleet of fieldsync serve --demo (started by it)"
    let valueOptions: Set<String> = ["server", "folder", "users", "dispatcher", "pause"]
    let usage = """
        Usage: fieldsync-tools demo-fleet --server URL --folder DIR --users U,U… --dispatcher U [--pause 60]

        Started by `fieldsync serve --demo`. The users' password is read from FIELDSYNC_DEMO_PASSWORD.
        Each round, every user's device (a database in --folder) works a small field day
        offline — visits, reports with photos, orders, status updates, an edit that collides
        with the dispatcher's — and syncs; rounds repeat every --pause seconds until stopped.
        """

    /// A day small enough to finish in seconds on any machine.
    static let day: FieldDay = {
        var day = FieldDay()
        (day.jobs, day.visits, day.reports, day.photoBytes, day.orders, day.statusUpdates, day.collisions) = (4, 3, 2, 60_000, 2, 10, 1)
        return day
    }()

    func run(_ arguments: CommandLineArguments, environment: Environment) throws -> Int32 {
        guard let server = arguments.value("server").flatMap(URL.init(string:)), let folder = arguments.value("folder"),
            let users = arguments.value("users")?.split(separator: ",").map(String.init), let dispatcher = arguments.value("dispatcher")
        else { throw CommandError("--server, --folder, --users and --dispatcher are required") }
        guard let password = environment["FIELDSYNC_DEMO_PASSWORD"] else { throw CommandError("FIELDSYNC_DEMO_PASSWORD is not set") }
        let pause = try arguments.number("pause", 60)
        // The server ignores SIGTERM and SIGINT to handle them itself, and ignored signals
        // pass to its children: take the defaults back, so that stopping the server stops this.
        signal(SIGTERM, SIG_DFL)
        signal(SIGINT, SIG_DFL)
        let parent = getppid()
        let directory = URL(fileURLWithPath: folder)
        // Record ids carry the start and the round, so that every round's records are new.
        let start = UUID().uuidString.prefix(4).lowercased()
        func device(_ username: String, round: Int) -> FleetDevice {
            FleetDevice(
                name: "\(username)-\(start)-\(round)", username: username, password: password,
                databasePath: directory.appendingPathComponent("\(username).sqlite").path, cameraFolder: directory)
        }
        let network = FleetNetwork(bases: [URLSessionTransport()])
        var round = 0
        while true {
            round += 1
            let fleet = FleetRun(
                serverURL: server, devices: users.map { device($0, round: round) }, dispatcher: device(dispatcher, round: round), day: Self.day,
                concurrency: users.count, network: network)
            do {
                let outcome = try Simulation.blocking { try await fleet.run(log: { _ in }) }
                print(
                    "demo fleet: round \(round) synced \(users.count) devices in \(String(format: "%.1f", outcome.drainSeconds)) s"
                        + (outcome.failures.isEmpty ? "" : "; \(outcome.failures.count) failed: \(outcome.failures[0])"))
            } catch {
                print("demo fleet: round \(round) failed: \(error)")
            }
            fflush(nil)
            Thread.sleep(forTimeInterval: Double(pause))
            // A server killed outright cannot stop its fleet: the fleet notices it was orphaned.
            if getppid() != parent { return 0 }
        }
    }
}
