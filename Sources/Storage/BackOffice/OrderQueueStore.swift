import Foundation
import Postgres
import SyncProtocol

/// An order with the names the back-office shows next to it.
public struct QueuedOrder: Sendable {
    public var order: Order
    /// The user name of whoever submitted it (the record's `user:` scope key); nil when the
    /// account no longer exists.
    public var submittedBy: String?
}

/// Reads the back-office's order pages: `orders` records by status, and one order.
/// Changes go through `OrderService`, never through this store.
public struct OrderQueueStore: Sendable {
    let database: PostgresClient

    public init(database: PostgresClient) {
        self.database = database
    }

    /// The live `orders` records with their submitter's name. The columns are
    /// `RecordRow.columns` with an empty `field_meta`: an order is read from its payload, and
    /// decoding every field's metadata was a large share of the queue's cost.
    private static let orders = """
        SELECT collection, record_id, payload::text, '{}', server_seq, deleted_seq, conflict_id, schema_version, created_at, updated_at,
               u.username
        FROM records LEFT JOIN (SELECT id, username FROM users) u ON records.user_scope = 'user:' || u.id
        WHERE collection = 'orders' AND deleted_seq IS NULL
        """

    /// Orders in `status`, oldest first.
    public func orders(status: OrderStatus, limit: Int = 200) throws -> [QueuedOrder] {
        let rows = try database.withConnection { connection in
            try connection.query(
                "\(unescaped: Self.orders) AND payload->>'status' = \(status.rawValue) ORDER BY created_at, record_id LIMIT \(limit)")
        }
        return try rows.map(Self.decode)
    }

    /// How many orders are in each status.
    public func counts() throws -> [OrderStatus: Int] {
        let rows = try database.withConnection { connection in
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
        let rows = try database.withConnection { connection in
            try connection.query("\(unescaped: Self.orders) AND record_id = \(id)")
        }
        return try rows.first.map(Self.decode)
    }

    private static func decode(_ row: PostgresRow) throws -> QueuedOrder {
        QueuedOrder(order: try Order(record: RecordRow.decode(row, offset: 0)), submittedBy: try row.decode(10, as: String?.self))
    }
}
