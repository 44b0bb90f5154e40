import App
import AppTesting
import FieldSyncClient
import Foundation
import SQLite
import Storage
import SyncEngine
import SyncProtocol

/// A real FieldSync server on loopback and a temporary folder for device databases: the
/// world an SDK test runs in. Devices are real `SyncClient`s with their own SQLite files.
///
/// ```swift
/// let bed = try await SDKTestBed.start()
/// defer { bed.finish() }
/// let ana = try await bed.device()
/// try await ana.client.create("jobs", id: "job-1", ["title": "Boiler"])
/// ```
final class SDKTestBed: Sendable {
    /// How many SDK test servers run at once (beside the other suites' servers).
    private static let slots = ServerSlots(limit: 3)

    let server: TestServer
    let folder: URL

    private init(server: TestServer, folder: URL) {
        self.server = server
        self.folder = folder
    }

    /// Starts a server once a slot is free (each holds PostgreSQL connections of the one
    /// test cluster that every suite of the process shares).
    /// - Parameter configure: adjusts the server's configuration before the start.
    static func start(configure: (inout AppConfiguration) -> Void = { _ in }) async throws -> SDKTestBed {
        await Self.slots.acquire()
        do {
            let server = try await TestServer.start {
                $0.databasePoolSize = 2
                configure(&$0)
            }
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fieldsync-sdk-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            return SDKTestBed(server: server, folder: folder)
        } catch {
            Self.slots.release()
            throw error
        }
    }

    /// Stops the server and removes the device databases.
    func finish() {
        server.stop()
        try? FileManager.default.removeItem(at: folder)
        Self.slots.release()
    }

    /// A fresh database path in the bed's folder.
    func databasePath(_ name: String = UUID().uuidString) -> String {
        folder.appendingPathComponent("\(name).sqlite").path
    }

    /// A client on `path` (a new database by default), talking to the server through
    /// `transport` (URLSession by default), with the given clock and sleep.
    func client(
        path: String? = nil, appVersion: String = "2.3.0", transport: (any HTTPTransport)? = nil, clock: TestClock? = nil,
        configure: (inout SyncClient.Configuration) -> Void = { _ in }
    ) throws -> SyncClient {
        var configuration = SyncClient.Configuration(serverURL: server.baseURL, databasePath: path ?? databasePath(), appVersion: appVersion)
        if let transport { configuration.transport = transport }
        if let clock {
            configuration.now = { clock.now }
            configuration.sleep = { try await clock.sleep($0) }
            configuration.random = { 0.5 }
            configuration.pollInterval = TestClock.pollInterval
        }
        configure(&configuration)
        return try SyncClient(configuration: configuration)
    }

    /// A new field user in `team`, signed in on a new device.
    func device(
        team: String = "team-1", appVersion: String = "2.3.0", transport: (any HTTPTransport)? = nil, clock: TestClock? = nil,
        configure: (inout SyncClient.Configuration) -> Void = { _ in }
    ) async throws -> TestDevice {
        let (user, password) = try server.makeUser(role: .field, team: team)
        let path = databasePath()
        let client = try client(path: path, appVersion: appVersion, transport: transport, clock: clock, configure: configure)
        try await client.signIn(username: user.username, password: password)
        return TestDevice(client: client, user: user, password: password, path: path)
    }

    /// Changes the server's operator settings (effective at once).
    func updateSettings(_ change: (inout ServerSettings) -> Void) throws {
        var settings = try server.core.settings.current()
        change(&settings)
        _ = try server.core.settings.update(settings, by: nil)
    }
}

/// A signed-in SDK device and the account behind it.
struct TestDevice: Sendable {
    let client: SyncClient
    let user: UserAccount
    let password: String
    let path: String

    /// The bearer token the device stores, read from its database file.
    func storedToken() throws -> String? {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in try db.value(String.self, "SELECT token FROM device") }
    }
}
