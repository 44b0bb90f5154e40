import Foundation
public import Postgres
public import Support
public import SyncEngine
import SyncProtocol

/// Reads the event outbox for the live feeds, and watches its `NOTIFY` channel.
///
/// Only settled ids are read: those of transactions older than any still running, so no lower
/// id can commit after a feed has passed it (docs/decisions/0004). Reads first wait briefly for
/// the writers running when they start, so a feed woken by a commit gets that commit's events.
public struct PostgresOutboxReader: OutboxReader {
    let database: PostgresClient
    let logger: Logger

    public init(database: PostgresClient, logger: Logger) {
        self.database = database
        self.logger = logger
    }

    public func latestId() throws -> Int64 {
        try database.connection { connection in
            let settled = ChangeHorizon.firstUnsettledEventId(floor: try ChangeHorizon.awaited(on: connection))
            return try connection.query("SELECT coalesce(max(id), 0) FROM events WHERE id < \(unescaped: settled)")[0]
                .decode(0, as: Int64.self)
        }
    }

    public func entries(after: Int64, through: Int64 = .max, limit: Int) throws -> [OutboxEntry] {
        try database.connection { connection in
            let settled = ChangeHorizon.firstUnsettledEventId(floor: try ChangeHorizon.awaited(on: connection))
            return try connection.query(
                """
                SELECT id, type, data::text, audience, data->>'collection' FROM events
                WHERE id > \(after) AND id <= \(through) AND id < \(unescaped: settled) ORDER BY id LIMIT \(limit)
                """
            ).map { row in
                OutboxEntry(
                    id: try row.decode(0), type: LiveEventType(rawValue: try row.decode(1)), data: try row.decode(2),
                    audience: try row.decode(3, as: [String].self).map(ScopeKey.init(rawValue:)), collection: try row.decode(4))
            }
        }
    }

    /// The outbox around `lastEventId`, in one statement.
    public func position(after lastEventId: Int64) throws -> OutboxPosition {
        try database.connection { connection in
            // Every id issued so far, committed or not, is below the next transaction id's first.
            let row = try connection.query(
                """
                SELECT (pg_snapshot_xmax(pg_current_snapshot())::text::bigint << 20) - 1,
                       EXISTS (SELECT 1 FROM events WHERE id <= \(lastEventId)),
                       next.id, next.created_at
                FROM (SELECT 1) AS one
                LEFT JOIN LATERAL (
                    SELECT id, created_at FROM events WHERE id > \(lastEventId) AND id < \(unescaped: ChangeHorizon.firstUnsettledEventId(floor: 0)) ORDER BY id LIMIT 1
                ) AS next ON true
                """)[0]
            let nextId = try row.decode(2, as: Int64?.self)
            let nextCreated = try row.decode(3, as: Date?.self)
            return OutboxPosition(
                issuedThrough: try row.decode(0), anchored: try row.decode(1),
                next: nextId.flatMap { id in nextCreated.map { (id, $0) } })
        }
    }

    public func watch(_ changed: @escaping @Sendable () -> Void) -> any OutboxWatch {
        ListenerWatch(
            listener: PostgresListener(configuration: database.configuration, channels: [EventOutbox.channel], logger: logger) { _, _ in
                changed()
            })
    }
}

/// A running `LISTEN` on the outbox channel.
private final class ListenerWatch: OutboxWatch {
    private let listener: PostgresListener

    init(listener: PostgresListener) {
        self.listener = listener
        listener.start()
    }

    func stop() {
        listener.stop()
    }
}
