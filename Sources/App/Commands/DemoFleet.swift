import Cryptography
import Foundation
import Storage
import Support
import SyncEngine
import SyncProtocol

/// `fieldsync serve --demo`: demo teams and users, and a small fleet of simulated devices
/// that work, collide with a dispatcher and sync while the server runs, so that every page
/// of the back-office has something to show. The fleet runs in a child `fieldsync-tools`
/// process (the device SDK and its HTTP client stay out of this binary).
struct DemoFleet: Sendable {
    /// The field users and their teams.
    static let fieldUsers = [("demo-ana", "demo-north"), ("demo-ben", "demo-north"), ("demo-chloe", "demo-south"), ("demo-dan", "demo-south")]
    static let supervisor = ("demo-sam", "demo-north")
    static let dispatcher = "demo-dispatch"

    private let process: Process

    /// Creates (or re-keys) the demo accounts and starts the fleet against the running server.
    /// - Throws: `CommandError` when `fieldsync-tools` is not beside this executable.
    static func start(_ application: Application, logger: Logger) throws -> DemoFleet {
        let tools = try DelegatedCommands.tools[0].location()
        logger.notice(
            "Demo mode (--demo): creating demo teams and users and starting a simulated fleet of \(fieldUsers.count) devices; "
                + "they add visits, reports with photos, orders and conflicts every minute. Without --demo none of this runs.")
        // A fresh password each start, known only to the fleet: demo accounts never keep a guessable one.
        let password = SecureRandom.token(byteCount: 18)
        try account(dispatcher, role: .dispatcher, team: nil, password: password, in: application.core)
        try account(supervisor.0, role: .supervisor, team: supervisor.1, password: password, in: application.core)
        for (username, team) in fieldUsers { try account(username, role: .field, team: team, password: password, in: application.core) }

        let folder = application.configuration.dataDirectory.appendingPathComponent("demo-devices")
        try? FileManager.default.removeItem(at: folder)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let process = Process()
        process.executableURL = tools
        process.arguments = [
            "demo-fleet", "--server", "http://\(reachableHost(application.configuration.host)):\(application.port)/", "--folder", folder.path,
            "--users", fieldUsers.map(\.0).joined(separator: ","), "--dispatcher", dispatcher,
        ]
        var environment = ProcessInfo.processInfo.environment
        environment["FIELDSYNC_DEMO_PASSWORD"] = password
        process.environment = environment
        try process.run()
        logger.notice(
            "Demo fleet started (fieldsync-tools pid \(process.processIdentifier)); demo users: \(fieldUsers.map(\.0).joined(separator: ", ")), \(supervisor.0), \(dispatcher)."
        )
        return DemoFleet(process: process)
    }

    /// Stops the fleet (before the server stops, so its devices do not see a dead server).
    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    private static func account(_ username: String, role: Role, team: String?, password: String, in core: Core) throws {
        let hash = try core.passwords.hash(password)
        if let existing = try core.accounts.credentials(username: username) {
            try core.accounts.setPasswordHash(userId: existing.user.id, hash)
        } else {
            _ = try core.accounts.createUser(username: username, role: role, teamId: team, passwordHash: hash)
        }
    }

    /// Where a process on this machine reaches a server bound to `host`.
    private static func reachableHost(_ host: String) -> String {
        ["0.0.0.0", "::", "", "localhost"].contains(host) ? "127.0.0.1" : host.contains(":") ? "[\(host)]" : host
    }
}
