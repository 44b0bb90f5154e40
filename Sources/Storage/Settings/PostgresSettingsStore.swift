import Foundation
public import Postgres
public import SyncEngine
import SyncProtocol
import Synchronization

/// Reads and writes `ServerSettings`, keeping a copy in memory because every sync
/// call consults it. The copy is refreshed after each local change and whenever
/// `invalidate()` is called (another instance's change, announced over NOTIFY).
public final class PostgresSettingsStore: SettingsStore {
    let database: PostgresClient
    private let cached = Mutex<ServerSettings?>(nil)

    public init(database: PostgresClient) {
        self.database = database
    }

    /// The current settings (from memory after the first read).
    public func current() throws -> ServerSettings {
        if let settings = cached.withLock({ $0 }) { return settings }
        let settings = try load()
        cached.withLock { $0 = settings }
        return settings
    }

    /// Drops the in-memory copy so the next read sees the database.
    public func invalidate() {
        cached.withLock { $0 = nil }
    }

    /// Stores the keys whose values differ from the stored ones, in one transaction with
    /// their audit rows and a `settings.changed` event; returns the changed keys with
    /// their old and new JSON values.
    ///
    /// - Parameters:
    ///   - settings: The complete new settings.
    ///   - userId: Who made the change (nil for the command line), recorded in the audit.
    @discardableResult
    public func update(_ settings: ServerSettings, by userId: String?) throws -> [SettingChange] {
        let changes = try database.transaction { connection in
            try update(settings, by: userId, on: connection)
        }
        invalidate()
        return changes
    }

    /// `update(_:by:)` inside the caller's transaction, so the change commits (or not)
    /// together with the caller's own writes.
    ///
    /// Concurrent updates are serialised by a transaction-scoped advisory lock, and the
    /// old values are read after taking it, so the audit never records a stale "before".
    /// Call `invalidate()` once the transaction has committed; other instances hear the
    /// NOTIFY sent at commit.
    ///
    /// - Parameters:
    ///   - settings: The complete new settings.
    ///   - userId: Who made the change, recorded in the audit.
    ///   - connection: A connection, usually inside the caller's transaction (outside
    ///     one, the update runs in a transaction of its own).
    @discardableResult
    public func update(_ settings: ServerSettings, by userId: String?, on connection: PostgresConnection) throws -> [SettingChange] {
        try connection.transaction { connection in
            // The lock travels with the read of the old values, and the writes with the event's
            // statements: an update costs the same few round trips however many keys change.
            try connection.enqueue(["SELECT pg_advisory_xact_lock(\(Self.updateLockKey))"])
            let changes = try ServerSettings.changes(from: try Self.load(on: connection), to: settings)
            guard !changes.isEmpty else { return [] }
            try connection.enqueue(["SELECT pg_notify(\(Self.changeChannel), '')"] + changes.flatMap { Self.store($0, by: userId) })
            let keys = JSONValue.array(changes.map { .string($0.key) })
            try EventOutbox.append(
                [PendingEvent(type: .settingsChanged, data: .object(["keys": keys]), audience: [])], on: connection)
            return changes
        }
    }

    /// The upsert of `change`'s new value and its audit row.
    private static func store(_ change: SettingChange, by userId: String?) -> [PostgresQuery] {
        let old = PostgresJSON(data: Data(change.old.utf8))
        let new = PostgresJSON(data: Data(change.new.utf8))
        return [
            """
            INSERT INTO settings (key, value, updated_by) VALUES (\(change.key), \(new), \(userId))
            ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = now(), updated_by = excluded.updated_by
            """,
            """
            INSERT INTO settings_audit (changed_by, key, old_value, new_value) VALUES (\(userId), \(change.key), \(old), \(new))
            """,
        ]
    }

    /// Serialises settings updates across instances ("FSSETTNG" in ASCII).
    private static let updateLockKey: Int64 = 0x4653_5345_5454_4E47

    /// The channel on which a settings change is announced at commit.
    public static let changeChannel = "fieldsync_settings"

    private func load() throws -> ServerSettings {
        try database.connection { try Self.load(on: $0) }
    }

    private static func load(on connection: PostgresConnection) throws -> ServerSettings {
        let rows = try connection.query("SELECT key, value::text AS value FROM settings")
        var object: [String: Any] = [:]
        for row in rows {
            let text = try row.decode("value", as: String.self)
            object[try row.decode("key", as: String.self)] = try JSONSerialization.jsonObject(
                with: Data(text.utf8), options: .fragmentsAllowed)
        }
        let data = try JSONSerialization.data(withJSONObject: object)
        return try JSONDecoder().decode(ServerSettings.self, from: data)
    }
}
