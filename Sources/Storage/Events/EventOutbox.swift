import Foundation
import Postgres
import SyncProtocol

/// A live event about to be written to the outbox.
public struct PendingEvent: Sendable {
    /// e.g. `record.changed`, `settings.changed`.
    public var type: String
    /// The `data:` JSON of the event.
    public var data: JSONValue
    /// Who may receive it: scope keys (`user:<id>`, `team:<id>`); office roles receive everything.
    public var audience: [String]

    public init(type: String, data: JSONValue, audience: [String]) {
        self.type = type
        self.data = data
        self.audience = audience
    }
}

/// Writes outbox rows inside the caller's transaction.
///
/// Event ids come from a `bigserial`, so rows must be inserted while holding the sequence
/// counter lock: then id order is commit order and a feed resuming after id N never
/// misses a lower id that commits later (docs/decisions/0003).
public enum EventOutbox {
    /// The channel notified at commit so every instance's feed wakes up.
    public static let channel = "fieldsync_events"

    /// Appends `events` in order; takes the counter lock if the transaction does not hold it yet.
    public static func append(_ events: [PendingEvent], on connection: PostgresConnection) throws {
        guard !events.isEmpty else { return }
        try connection.query("SELECT value FROM sequence_counter FOR UPDATE")
        let encoder = JSONEncoder()
        var sql = "INSERT INTO events (type, data, audience) VALUES "
        var binds: [String?] = []
        for (index, event) in events.enumerated() {
            let base = index * 3
            sql += index == 0 ? "" : ", "
            sql += "($\(base + 1), $\(base + 2)::jsonb, $\(base + 3)::text[])"
            binds.append(event.type)
            binds.append(String(decoding: try encoder.encode(event.data), as: UTF8.self))
            binds.append(event.audience.postgresText)
        }
        try connection.execute(PostgresQuery(sql, binds: binds))
        try connection.query("SELECT pg_notify(\(channel), '')")
    }
}
