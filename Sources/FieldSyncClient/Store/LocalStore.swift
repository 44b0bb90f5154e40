import Foundation
import SQLite
import SyncProtocol

/// The device database: every read and write of the SDK's local state, each a single
/// SQLite transaction on the store's queue.
///
/// The photos' own copies live in a folder beside the database file; a row points at its
/// file, and a file without a row (a crash between copy and commit) is removed at open.
final class LocalStore: Sendable {
    let queue: DatabaseQueue
    let photosDirectory: URL

    /// Opens (creating and migrating) the database at `path`; a new one gets a fresh device id.
    init(path: String) throws {
        queue = try DatabaseQueue(path: path, configuration: Self.configuration)
        photosDirectory = URL(fileURLWithPath: path + "-photos", isDirectory: true)
        try ClientSchema.migrator.migrate(queue)
        try queue.write { db in
            if try db.value(Int.self, "SELECT count(*) FROM device") == 0 {
                try db.execute("INSERT INTO device (id, device_id) VALUES (1, ?)", ["dev-" + UUID().uuidString.lowercased()])
            }
        }
        try FileManager.default.createDirectory(at: photosDirectory, withIntermediateDirectories: true)
        try removeOrphanPhotoFiles()
    }

    private static var configuration: Configuration {
        var configuration = Configuration()
        configuration.label = "FieldSyncClient.LocalStore"
        return configuration
    }

    func close() throws { try queue.close() }

    // MARK: - The device row

    func device() async throws -> DeviceRow {
        try await queue.read { db in try Self.device(db) }
    }

    static func device(_ db: Database) throws -> DeviceRow {
        guard let row = try db.row("SELECT * FROM device WHERE id = 1") else {
            throw SQLiteError(code: .corrupt, message: "the device row is missing")
        }
        return try DeviceRow(row)
    }

    /// Stores a new session after a sign-in, with the server's limits.
    func signedIn(token: String, user: UserInfo, limits: ServerLimits?, minSupported: String?, at now: Date) async throws {
        let userJSON = try StoredJSON.text(user)
        let limitsJSON = try limits.map(StoredJSON.text)
        try await queue.write { db in
            try db.execute(
                """
                UPDATE device SET token = ?, user_json = ?, session = 'active', limits_json = coalesce(?, limits_json),
                limits_fetched_at = CASE WHEN ? IS NULL THEN limits_fetched_at ELSE ? END,
                min_supported_app_version = coalesce(?, min_supported_app_version) WHERE id = 1
                """, [token, userJSON, limitsJSON, limitsJSON, now.timeIntervalSince1970, minSupported])
        }
    }

    func setSession(_ session: Session) async throws {
        try await queue.write { db in try db.execute("UPDATE device SET session = ? WHERE id = 1", [session.rawValue]) }
    }

    func setLimits(_ limits: ServerLimits, minSupported: String, at now: Date) async throws {
        let json = try StoredJSON.text(limits)
        try await queue.write { db in
            try db.execute(
                "UPDATE device SET limits_json = ?, limits_fetched_at = ?, min_supported_app_version = ? WHERE id = 1",
                [json, now.timeIntervalSince1970, minSupported])
        }
    }

    /// Notes a 426 for `appVersion`, or clears it (`minimum` nil and `appVersion` nil).
    func setUpgradeRequired(minimum: String?, appVersion: String?) async throws {
        try await queue.write { db in
            try db.execute("UPDATE device SET upgrade_minimum = ?, upgrade_app_version = ? WHERE id = 1", [minimum, appVersion])
        }
    }

    /// What a finished cycle learned: the server's version floor and clock, and, when nothing
    /// is left to send, the time everything was synced.
    func cycleFinished(minSupported: String?, clockOffset: TimeInterval, syncedAt: Date?) async throws {
        try await queue.write { db in
            try db.execute(
                """
                UPDATE device SET min_supported_app_version = coalesce(?, min_supported_app_version), clock_offset = ?,
                last_synced_at = coalesce(?, last_synced_at) WHERE id = 1
                """, [minSupported, clockOffset, syncedAt?.timeIntervalSince1970])
        }
    }

    // MARK: - Counts

    func facts() async throws -> StoreFacts {
        try await queue.read { db in try Self.facts(db) }
    }

    static func facts(_ db: Database) throws -> StoreFacts {
        let row = try db.row(
            """
            SELECT (SELECT count(*) FROM outbox) AS changes,
                   (SELECT count(*) FROM photos WHERE state = 'queued') AS photos,
                   (SELECT count(*) FROM issues) + (SELECT count(*) FROM photos WHERE state = 'failed') AS issues
            """)
        return StoreFacts(
            pendingChanges: try row?.decode("changes") ?? 0, pendingPhotos: try row?.decode("photos") ?? 0,
            issues: try row?.decode("issues") ?? 0)
    }

    // MARK: - Photo files

    func photoFile(named name: String) -> URL { photosDirectory.appendingPathComponent(name) }

    private func removeOrphanPhotoFiles() throws {
        let known = Set(try queue.read { db in try db.values(String.self, "SELECT file_name FROM photos") })
        let present = try FileManager.default.contentsOfDirectory(atPath: photosDirectory.path)
        for name in present where !known.contains(name) {
            try? FileManager.default.removeItem(at: photoFile(named: name))
        }
    }
}
