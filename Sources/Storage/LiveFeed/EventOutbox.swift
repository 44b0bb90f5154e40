import Foundation
public import Postgres
public import SyncEngine
import SyncProtocol

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
        try connection.pipeline(SequenceCounter.lock + statements(inserting: events))
    }

    /// The insert of `events`, in order, and the notification, for a transaction that holds the
    /// counter lock: one statement whatever the count, so it is prepared once per connection.
    static func statements(inserting events: [PendingEvent]) -> [PostgresQuery] {
        statements(Headers(types: events.map(\.type), audiences: events.map(\.audience)), data: events.map(\.data))
    }

    /// Type and audience binds of outbox rows, which can be encoded before their data is final.
    struct Headers {
        let count: Int
        let types: String?
        /// Each audience as the text of an array literal, cast row by row.
        let audiences: String?

        init(types: [LiveEventType], audiences: [[ScopeKey]]) {
            count = types.count
            self.types = types.map(\.rawValue).postgresText
            self.audiences = audiences.map { $0.map(\.rawValue).postgresText }.postgresText
        }
    }

    /// ``statements(inserting:)`` for rows whose headers are encoded already.
    static func statements(_ headers: Headers, data: [JSONValue]) -> [PostgresQuery] {
        guard headers.count > 0 else { return [] }
        // `data` goes through JSONValue's own writer: JSONEncoder costs far more.
        let data = data.map { String(decoding: $0.canonicalData(), as: UTF8.self) }
        return [
            """
            INSERT INTO events (type, data, audience)
            SELECT type, data, audience::text[] FROM unnest(\(headers.types)::text[], \(data)::jsonb[], \(headers.audiences)::text[])
                AS e(type, data, audience)
            """,
            "SELECT pg_notify(\(channel), '')",
        ]
    }
}
