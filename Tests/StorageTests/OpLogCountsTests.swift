import Foundation
import Postgres
import PostgresTesting
import Storage
import SyncEngine
import Testing

@Suite("Op log counts (kept by triggers)")
struct OpLogCountsTests {
    let database: PostgresClient

    init() throws {
        database = try StorageDatabase.migrated()
    }

    /// Non-zero counts from `op_log_counts` and the same figures grouped from `op_log`.
    private func countsAndTruth() throws -> (counts: [String], truth: [String]) {
        try database.withConnection { connection in
            func lines(_ query: PostgresQuery) throws -> [String] {
                try connection.query(query).map { "\(try $0.decode(0, as: String.self)) \(try $0.decode(1, as: Int.self))" }
            }
            return (
                try lines("SELECT device_id || '/' || author_id || '/' || status, ops FROM op_log_counts WHERE ops <> 0 ORDER BY 1"),
                try lines("SELECT device_id || '/' || author_id || '/' || status, count(*) FROM op_log GROUP BY 1 ORDER BY 1")
            )
        }
    }

    private func insert(_ values: String) throws {
        try database.withConnection { connection in
            try connection.executeScript(
                """
                INSERT INTO op_log (device_id, op_id, client_seq, entity_key, author_id, collection, record_id, status, result,
                                    fingerprint, body, received_at)
                VALUES \(values)
                ON CONFLICT (device_id, op_id) DO UPDATE SET status = excluded.status
                """)
        }
    }

    @Test("Inserts, upserts that change an outcome, deletes and truncation keep the counts equal to the op log")
    func followsEveryWrite() throws {
        try insert(
            """
            ('d1', 'o1', 1, 'r', 'ana', 'jobs', 'r', 'applied', '{}', 'f', '{}', now()),
            ('d1', 'o2', 2, 'r', 'ana', 'jobs', 'r', 'deferred', '{}', 'f', '{}', now()),
            ('d1', 'o3', 3, 'r', 'ana', 'jobs', 'r', 'deferred', '{}', 'f', '{}', now()),
            ('d2', 'o1', 1, 'r', 'bo', 'jobs', 'r', 'rejected', '{}', 'f', '{}', now() - interval '40 days')
            """)
        var state = try countsAndTruth()
        #expect(state.counts == ["d1/ana/applied 1", "d1/ana/deferred 2", "d2/bo/rejected 1"])

        // A deferred op settles (the push path's upsert) while a new one arrives in the same statement.
        try insert(
            """
            ('d1', 'o2', 2, 'r', 'ana', 'jobs', 'r', 'applied', '{}', 'f', '{}', now()),
            ('d1', 'o4', 4, 'r', 'ana', 'jobs', 'r', 'conflict', '{}', 'f', '{}', now())
            """)
        state = try countsAndTruth()
        #expect(state.counts == state.truth)
        #expect(state.counts == ["d1/ana/applied 2", "d1/ana/conflict 1", "d1/ana/deferred 1", "d2/bo/rejected 1"])

        // Retention deletes the old result.
        let cutoffs = RetentionCutoffs(settings: ServerSettings(), now: Date(), webSessionIdleTimeout: 1800)
        #expect(try PostgresRetentionStore(database: database).delete(.opResults, cutoffs, limit: 100) == 1)
        state = try countsAndTruth()
        #expect(state.counts == state.truth)

        try database.withConnection { try $0.executeScript("TRUNCATE op_log") }
        #expect(try database.withConnection { try $0.query("SELECT count(*) FROM op_log_counts")[0].decode(0, as: Int.self) } == 0)
    }

    @Test("A rolled-back write leaves the counts as they were")
    func rollback() throws {
        try insert("('d1', 'o1', 1, 'r', 'ana', 'jobs', 'r', 'applied', '{}', 'f', '{}', now())")
        struct Abort: Error {}
        #expect(throws: Abort.self) {
            try database.withTransaction { connection in
                try connection.execute(
                    """
                    INSERT INTO op_log (device_id, op_id, client_seq, entity_key, author_id, collection, record_id, status, result,
                                        fingerprint, body)
                    VALUES ('d1', 'o2', 2, 'r', 'ana', 'jobs', 'r', 'applied', '{}', 'f', '{}')
                    """)
                throw Abort()
            }
        }
        #expect(try countsAndTruth().counts == ["d1/ana/applied 1"])
    }
}
