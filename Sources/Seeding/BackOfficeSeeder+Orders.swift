import Postgres

extension BackOfficeSeeder {
    /// The ids of the oldest `limit` submitted orders: the head of the dispatchers' queue.
    public func submittedOrderIds(limit: Int) throws -> [String] {
        try database.withConnection { connection in
            try connection.query(
                """
                SELECT record_id FROM records WHERE collection = 'orders' AND deleted_seq IS NULL AND payload->>'status' = 'SUBMITTED'
                ORDER BY created_at, record_id LIMIT \(limit)
                """
            ).map { try $0.decode(0) }
        }
    }
}
