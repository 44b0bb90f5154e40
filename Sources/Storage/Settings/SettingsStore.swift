import Foundation
import Postgres
import Synchronization

/// Reads and writes `ServerSettings`, keeping a copy in memory because every sync
/// call consults it. The copy is refreshed after each local change and whenever
/// `invalidate()` is called (another instance's change, announced over NOTIFY).
public final class SettingsStore: Sendable {
    private let database: PostgresClient
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

    /// Stores the keys whose values differ from `current()`; returns the changed keys
    /// with their old and new JSON values, for the audit trail.
    @discardableResult
    public func update(_ settings: ServerSettings, by userId: String?) throws -> [SettingChange] {
        let old = try Self.keyedJSON(try current())
        let new = try Self.keyedJSON(settings)
        // A key missing on one side is an optional that is unset there: JSON `null`.
        let changes = Set(old.keys).union(new.keys).sorted().compactMap { key -> SettingChange? in
            old[key] == new[key] ? nil : SettingChange(key: key, old: old[key] ?? "null", new: new[key] ?? "null")
        }
        guard !changes.isEmpty else { return [] }
        try database.withTransaction { connection in
            try connection.query("SELECT pg_notify(\(Self.changeChannel), '')")
            for change in changes {
                try connection.execute("""
                    INSERT INTO settings (key, value, updated_by) VALUES (\(change.key), \(PostgresJSON(data: Data(change.new.utf8))), \(userId))
                    ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = now(), updated_by = excluded.updated_by
                    """)
            }
        }
        invalidate()
        return changes
    }

    /// The channel on which a settings change is announced at commit.
    public static let changeChannel = "fieldsync_settings"

    private func load() throws -> ServerSettings {
        let rows = try database.withConnection { connection in
            try connection.query("SELECT key, value::text AS value FROM settings")
        }
        var object: [String: Any] = [:]
        for row in rows {
            let text = try row.decode("value", as: String.self)
            object[try row.decode("key", as: String.self)] = try JSONSerialization.jsonObject(
                with: Data(text.utf8), options: .fragmentsAllowed)
        }
        let data = try JSONSerialization.data(withJSONObject: object)
        return try JSONDecoder().decode(ServerSettings.self, from: data)
    }

    /// Each set value as canonical JSON text, keyed by name (unset optionals are absent).
    static func keyedJSON(_ settings: ServerSettings) throws -> [String: String] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(settings)
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        return try object.mapValues { value in
            String(decoding: try JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed, .sortedKeys]), as: UTF8.self)
        }
    }
}

/// One audited settings change.
public struct SettingChange: Sendable, Equatable, Codable {
    public let key: String
    /// JSON text of the previous and the new value.
    public let old: String
    public let new: String

    public init(key: String, old: String, new: String) {
        self.key = key
        self.old = old
        self.new = new
    }
}
