import Foundation
public import Postgres
public import SyncEngine
import SyncProtocol

/// Writes outbox rows inside the caller's transaction.
///
/// An event's id is its transaction's id times 2^20 plus its place in the transaction (the
/// column's default, `next_event_id()`), and feeds read only ids below the oldest running
/// transaction's: a feed resuming after id N never misses a lower id that commits later, and
/// writers take no lock for it (docs/decisions/0004).
public enum EventOutbox {
    /// The channel notified at commit so every instance's feed wakes up.
    public static let channel = "fieldsync_events"

    /// Appends `events` in order, and notifies the feeds when the transaction commits.
    public static func append(_ events: [PendingEvent], on connection: PostgresConnection) throws {
        guard !events.isEmpty else { return }
        try connection.pipeline(inserts(inserting: events) + [notify])
    }

    /// Wakes every instance's feeds: at the commit of the transaction it runs in, or at once
    /// outside one. A busy writer uses ``notifyAfterCommit(on:)`` instead.
    private static let notify: PostgresQuery = "SELECT pg_notify(\(channel), '')"

    /// Wakes every instance's feeds right after the caller's transaction commits, in the
    /// commit's round trip (`PostgresConnection.enqueueAfterCommit`), not in the transaction:
    /// PostgreSQL serializes the commits of notifying transactions (a lock held through the WAL
    /// flush), which would make concurrent writers commit one at a time. The changes are
    /// committed whatever happens to the notification; feeds also poll, so a lost one only
    /// delays delivery.
    static func notifyAfterCommit(on connection: PostgresConnection) {
        connection.enqueueAfterCommit([notify])
    }

    /// The insert of `events`, in order: one statement whatever the count, so it is prepared
    /// once per connection.
    static func inserts(inserting events: [PendingEvent]) -> [PostgresQuery] {
        inserts(Headers(types: events.map(\.type), audiences: events.map(\.audience)), data: events.map(\.data))
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

    /// ``inserts(inserting:)`` for rows whose headers are encoded already.
    static func inserts(_ headers: Headers, data: [JSONValue]) -> [PostgresQuery] {
        guard headers.count > 0 else { return [] }
        // `data` goes through JSONValue's own writer: JSONEncoder costs far more.
        let data = data.map { String(decoding: $0.canonicalData(), as: UTF8.self) }
        return [
            """
            INSERT INTO events (type, data, audience)
            SELECT type, data, audience::text[] FROM unnest(\(headers.types)::text[], \(data)::jsonb[], \(headers.audiences)::text[])
                AS e(type, data, audience)
            """
        ]
    }
}
