import Foundation
public import Postgres
public import SyncEngine
public import SyncProtocol

/// The back-office's order pages on PostgreSQL: `orders` records by status, and one order.
public struct PostgresOrderStore: OrderStore {
    let database: PostgresClient

    public init(database: PostgresClient) {
        self.database = database
    }

    /// The live `orders` records with their submitter's name and, once decided, the name of
    /// who decided. The columns are `RecordRow.columns` with an empty `field_meta`: an order is
    /// read from its payload, and decoding every field's metadata was a large share of the
    /// queue's cost.
    private static let orders = """
        SELECT collection, record_id, payload::text, '{}', server_seq, deleted_seq, conflict_id, schema_version, created_at, updated_at,
               u.username, \(KeyPart.timestampText("created_at")), \(decider)
        FROM records LEFT JOIN (SELECT id, username FROM users) u ON records.user_scope = 'user:' || u.id
        WHERE collection = 'orders' AND deleted_seq IS NULL
        """

    /// The user whose change last set `status`, from its field metadata: a back-office change
    /// carries `web:<user id>`, a device's change the device id.
    private static let decider = """
        CASE WHEN payload->>'status' <> 'SUBMITTED' THEN (
            SELECT COALESCE(
                (SELECT username FROM users WHERE status_device LIKE 'web:%' AND id = substr(status_device, 5)),
                (SELECT du.username FROM devices d JOIN users du ON du.id = d.user_id WHERE d.device_id = status_device))
            FROM (SELECT field_meta::jsonb->'status'->>'deviceId' AS status_device) decided)
        END
        """

    /// The list's first page starts after this key: `-infinity` precedes every order.
    private static let start = PageCursor(["-infinity", ""])

    /// One page of the orders in `status`, oldest first: the `limit` orders after `after`
    /// (from the oldest when nil).
    /// - Throws: `PageCursor.Invalid` when `after` is not a cursor of this list.
    public func orders(status: OrderStatus, after: PageCursor? = nil, limit: Int = 100) throws -> PageOf<QueuedOrder> {
        let key = try (after ?? Self.start).checked([.timestamp, .text])
        let rows = try database.connection { connection in
            try connection.query(
                """
                \(unescaped: Self.orders) AND payload->>'status' = \(status.rawValue)
                  AND (created_at, record_id) > (\(key[0])::timestamptz, \(key[1]))
                ORDER BY created_at, record_id LIMIT \(limit + 1)
                """)
        }
        let fetched = try rows.map { (order: try Self.decode($0), key: try $0.decode(11, as: String.self)) }
        return PageOf(fetched, limit: limit, row: \.order) { PageCursor([$0.key, $0.order.order.orderId]) }
    }

    /// How many orders are in each status.
    public func counts() throws -> [OrderStatus: Int] {
        let rows = try database.connection { connection in
            try connection.query(
                "SELECT payload->>'status', count(*) FROM records WHERE collection = 'orders' AND deleted_seq IS NULL GROUP BY 1")
        }
        var counts: [OrderStatus: Int] = [:]
        for row in rows {
            guard let status = try row.decode(0, as: String?.self).flatMap(OrderStatus.init(rawValue:)) else { continue }
            counts[status] = try row.decode(1, as: Int.self)
        }
        return counts
    }

    /// One order; nil when there is none with this id.
    public func order(id: String) throws -> QueuedOrder? {
        let rows = try database.connection { connection in
            try connection.query("\(unescaped: Self.orders) AND record_id = \(id)")
        }
        return try rows.first.map(Self.decode)
    }

    /// The orders among `ids` (one statement), in no particular order; ids that name no order
    /// are left out.
    public func orders(ids: [String]) throws -> [QueuedOrder] {
        let rows = try database.connection { connection in
            try connection.query("\(unescaped: Self.orders) AND record_id = ANY(\(ids)::text[])")
        }
        return try rows.map(Self.decode)
    }

    private static func decode(_ row: PostgresRow) throws -> QueuedOrder {
        QueuedOrder(
            order: try Order(record: RecordRow.decode(row, offset: 0)), submittedBy: try row.decode(10, as: String?.self),
            decidedBy: try row.decode(12, as: String?.self))
    }
}
