import Foundation
import Postgres
import PostgresTesting
import Storage
import SyncEngine
import Testing

@Suite("Retention (worker job)")
struct RetentionStoreTests {
    @Test("A pass in batches deletes op results, tombstones, exits and events past their windows, as counted; keeps deferred ops and live records")
    func purge() throws {
        let database = try StorageDatabase.migrated()
        try database.withConnection { connection in
            try connection.executeScript(
                """
                INSERT INTO op_log (device_id, op_id, client_seq, entity_key, author_id, collection, record_id, status, result,
                                    fingerprint, body, received_at)
                VALUES ('d', 'old-applied', 1, 'r', 'u', 'jobs', 'r', 'applied', '{}', 'f', '{}', now() - interval '40 days'),
                       ('d', 'old-deferred', 2, 'r', 'u', 'jobs', 'r', 'deferred', '{}', 'f', '{}', now() - interval '40 days'),
                       ('d', 'fresh', 3, 'r', 'u', 'jobs', 'r', 'applied', '{}', 'f', '{}', now() - interval '2 days');
                INSERT INTO records (collection, record_id, payload, field_meta, server_seq, deleted_seq, schema_version, updated_at)
                VALUES ('jobs', 'gone-long-ago', '{}', '{}', 1, 1, 3, now() - interval '90 days'),
                       ('jobs', 'gone-recently', '{}', '{}', 2, 2, 3, now() - interval '5 days'),
                       ('jobs', 'alive', '{}', '{}', 3, NULL, 3, now() - interval '400 days');
                INSERT INTO scope_exits (scope_key, collection, record_id, seq, exited_at)
                VALUES ('user:a', 'jobs', 'x', 1, now() - interval '90 days'), ('user:a', 'jobs', 'y', 2, now());
                INSERT INTO users (id, username, role, password_hash) VALUES ('u', 'u', 'field', '!');
                INSERT INTO idempotency_keys (user_id, endpoint, key, fingerprint, status, body, created_at)
                VALUES ('u', 'POST /v1/orders', 'old', 'f', 201, '\\x7b7d', now() - interval '40 days'),
                       ('u', 'POST /v1/orders', 'new', 'f', 201, '\\x7b7d', now());
                INSERT INTO events (type, data, audience, created_at)
                VALUES ('record.changed', '{}', '{}', now() - interval '2 days'), ('record.changed', '{}', '{}', now());
                """)
        }
        let pass = RetentionPass(store: PostgresRetentionStore(database: database), rules: RetentionRule.allCases, batchSize: 1)
        let cutoffs = RetentionCutoffs(settings: ServerSettings(), now: Date(), webSessionIdleTimeout: 1800)
        let pending = try pass.pending(cutoffs)
        var reported: [Int] = []
        let report = try pass.run(cutoffs) { report, total in
            #expect(total == pending.total)
            reported.append(report.total)
        }
        #expect(report == pending, "a pass deletes what counting said it would")
        #expect(report[.opResults] == 1 && report[.tombstones] == 1 && report[.scopeExits] == 1 && report[.events] == 1)
        #expect(report[.idempotencyKeys] == 1)
        #expect(reported == Array(1...report.total), "progress after every batch of one")
        let left = try database.withConnection { connection in
            (
                try connection.query("SELECT op_id FROM op_log ORDER BY op_id").map { try $0.decode(0, as: String.self) },
                try connection.query("SELECT record_id FROM records ORDER BY record_id").map { try $0.decode(0, as: String.self) }
            )
        }
        #expect(left.0 == ["fresh", "old-deferred"])
        #expect(left.1 == ["alive", "gone-recently"])
        #expect(try pass.pending(cutoffs).total == 0)
        #expect(try pass.run(cutoffs) { _, _ in Issue.record("nothing left to delete") }.total == 0)
    }
}
