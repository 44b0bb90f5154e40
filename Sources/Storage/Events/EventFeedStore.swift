import Foundation
import Postgres
import Support

/// One outbox row as the live feeds read it.
public struct OutboxEntry: Sendable, Equatable {
    /// The event's stream id (`id:` on the wire); grows in commit order.
    public var id: Int64
    public var type: String
    /// The `data:` JSON, as PostgreSQL prints the `jsonb` (one line).
    public var data: String
    /// Scope keys (`user:<id>`, `team:<id>`) of who may see it.
    public var audience: [String]
    /// `data.collection` when the event has one (record and conflict events).
    public var collection: String?

    public init(id: Int64, type: String, data: String, audience: [String], collection: String?) {
        self.id = id
        self.type = type
        self.data = data
        self.audience = audience
        self.collection = collection
    }
}

/// What the outbox holds around a client's `Last-Event-ID`, to decide whether it can resume.
public struct OutboxPosition: Sendable, Equatable {
    /// The highest event id ever handed out (committed or not); 0 before the first event.
    public var issuedThrough: Int64
    /// Whether a row with an id at or below the client's still exists. Retention deletes the
    /// oldest rows first, so while one does, nothing after it has been deleted.
    public var anchored: Bool
    /// The first row after the client's id: the oldest event a resume must replay.
    public var next: (id: Int64, createdAt: Date)?

    public init(issuedThrough: Int64, anchored: Bool, next: (id: Int64, createdAt: Date)?) {
        self.issuedThrough = issuedThrough
        self.anchored = anchored
        self.next = next
    }

    public static func == (lhs: OutboxPosition, rhs: OutboxPosition) -> Bool {
        lhs.issuedThrough == rhs.issuedThrough && lhs.anchored == rhs.anchored && lhs.next?.id == rhs.next?.id
            && lhs.next?.createdAt == rhs.next?.createdAt
    }
}

/// Reads the event outbox for the live feeds, and watches it for commits.
///
/// Outbox ids are assigned under the sequence-counter lock (see ``EventOutbox``), so when a
/// reader sees id N every lower id that will ever commit has committed: reading `id > last`
/// never skips a row.
public struct EventFeedStore: Sendable {
    let database: PostgresClient
    let logger: Logger

    public init(database: PostgresClient, logger: Logger) {
        self.database = database
        self.logger = logger
    }

    /// The highest committed event id (0 when the outbox is empty).
    public func latestId() throws -> Int64 {
        try database.withConnection { connection in
            try connection.query("SELECT coalesce(max(id), 0) FROM events")[0].decode(0, as: Int64.self)
        }
    }

    /// Rows with `after < id <= through`, oldest first, at most `limit`.
    public func entries(after: Int64, through: Int64 = .max, limit: Int) throws -> [OutboxEntry] {
        try database.withConnection { connection in
            try connection.query("""
                SELECT id, type, data::text, audience, data->>'collection' FROM events
                WHERE id > \(after) AND id <= \(through) ORDER BY id LIMIT \(limit)
                """).map { row in
                OutboxEntry(
                    id: try row.decode(0), type: try row.decode(1), data: try row.decode(2), audience: try row.decode(3),
                    collection: try row.decode(4))
            }
        }
    }

    /// The outbox around `lastEventId`, in one statement.
    public func position(after lastEventId: Int64) throws -> OutboxPosition {
        try database.withConnection { connection in
            // events_id_seq is the sequence behind events.id (bigserial). Reading it shows every
            // nextval of every session, committed or not; before the first one it is not "called".
            let row = try connection.query("""
                SELECT (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM events_id_seq),
                       EXISTS (SELECT 1 FROM events WHERE id <= \(lastEventId)),
                       next.id, next.created_at
                FROM (SELECT 1) AS one
                LEFT JOIN LATERAL (SELECT id, created_at FROM events WHERE id > \(lastEventId) ORDER BY id LIMIT 1) AS next ON true
                """)[0]
            let nextId = try row.decode(2, as: Int64?.self)
            let nextCreated = try row.decode(3, as: Date?.self)
            return OutboxPosition(
                issuedThrough: try row.decode(0), anchored: try row.decode(1),
                next: nextId.flatMap { id in nextCreated.map { (id, $0) } })
        }
    }

    /// Calls `changed` (on a listener thread) whenever a transaction that wrote events
    /// commits, on this or any other FieldSync instance of the database.
    ///
    /// Notifications sent while the listener reconnects are lost; readers poll now and then
    /// as well (see `EventHub`).
    public func watch(_ changed: @escaping @Sendable () -> Void) -> OutboxWatch {
        OutboxWatch(
            listener: PostgresListener(configuration: database.configuration, channels: [EventOutbox.channel], logger: logger) { _, _ in
                changed()
            })
    }
}

/// A running watch of the outbox; `stop()` ends it.
public final class OutboxWatch: Sendable {
    private let listener: PostgresListener

    init(listener: PostgresListener) {
        self.listener = listener
        listener.start()
    }

    public func stop() {
        listener.stop()
    }
}
