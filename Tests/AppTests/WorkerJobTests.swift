import App
import AppTesting
import Foundation
import Postgres
import PostgresTesting
import Storage
import Support
import SyncEngine
import Testing
import Worker

/// The worker's jobs as the application composes them, run through the job runner against a
/// real database: what each deletes, and what its run records.
@Suite("Worker jobs through the runner", .serialized)
struct WorkerJobTests {
    /// Rows of every kind retention handles, one past its window and one inside it.
    static let seed = """
        INSERT INTO users (id, username, role, password_hash) VALUES ('u', 'u', 'field', '!');
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
        INSERT INTO idempotency_keys (user_id, endpoint, key, fingerprint, status, body, created_at)
        VALUES ('u', 'POST /v1/orders', 'old', 'f', 201, '\\x7b7d', now() - interval '40 days'),
               ('u', 'POST /v1/orders', 'new', 'f', 201, '\\x7b7d', now());
        INSERT INTO web_sessions (id_hash, user_id, created_at, last_seen_at, expires_at)
        VALUES ('\\x01', 'u', now() - interval '2 days', now() - interval '1 hour', now() - interval '1 minute'),
               ('\\x02', 'u', now() - interval '2 hours', now() - interval '2 hours', now() + interval '6 hours'),
               ('\\x03', 'u', now() - interval '1 minute', now(), now() + interval '8 hours');
        INSERT INTO device_tokens (token_hash, user_id, device_id, expires_at)
        VALUES ('\\x0a', 'u', 'd-expired-long-ago', now() - interval '40 days'),
               ('\\x0b', 'u', 'd-expired-recently', now() - interval '2 days'),
               ('\\x0c', 'u', 'd-live', now() + interval '80 days');
        INSERT INTO events (type, data, audience, created_at)
        VALUES ('record.changed', '{}', '{}', now() - interval '2 days'), ('record.changed', '{}', '{}', now());
        """

    static func start() async throws -> TestServer {
        try await TestServer.start { $0.runsWorker = false }
    }

    static func job(_ name: String, of server: TestServer) throws -> any Job {
        try #require(server.application.features.flatMap(\.jobs).first { $0.name == name })
    }

    @Test("Retention deletes each kind past its window, keeps the rest, and records each count in its run")
    func retention() async throws {
        let server = try await Self.start()
        defer { server.stop() }
        try server.core.database.withConnection { try $0.executeScript(Self.seed) }
        let runner = Application.jobRunner(server.core)
        let result = try runner.run(try Self.job("retention", of: server))
        guard case .ran(let id, .succeeded) = result else {
            Issue.record("\(result)")
            return
        }
        let run = try #require(try runner.runs.recent(job: "retention", limit: 5).first)
        #expect(run.id == id && run.requestedBy == nil && run.finishedAt != nil && run.error == nil)
        #expect(
            run.counts == [
                "opResults": 1, "tombstones": 1, "scopeExits": 1, "idempotencyKeys": 1, "webSessions": 2, "deviceTokens": 1,
            ])
        #expect(run.done == 7 && run.total == 7)
        let left = try server.core.database.withConnection { connection in
            try [
                "SELECT string_agg(op_id, ',' ORDER BY op_id) FROM op_log",
                "SELECT string_agg(record_id, ',' ORDER BY record_id) FROM records",
                "SELECT string_agg(record_id, ',' ORDER BY record_id) FROM scope_exits",
                "SELECT string_agg(key, ',' ORDER BY key) FROM idempotency_keys",
                "SELECT string_agg(encode(id_hash, 'hex'), ',' ORDER BY id_hash) FROM web_sessions",
                "SELECT string_agg(device_id, ',' ORDER BY device_id) FROM device_tokens",
                "SELECT count(*)::text FROM events WHERE created_at < now() - interval '1 day'",
            ].map { try connection.query(PostgresQuery($0))[0].decode(0, as: String.self) }
        }
        #expect(
            left == [
                "fresh,old-deferred", "alive,gone-recently", "y", "new", "03", "d-expired-recently,d-live", "1",
            ])
        let again = try runner.run(try Self.job("retention", of: server))
        guard case .ran(let secondId, .succeeded) = again else {
            Issue.record("\(again)")
            return
        }
        #expect(try runner.runs.recent(job: "retention", limit: 1).first?.counts.values.reduce(0, +) == 0)
        #expect(secondId != id)
    }

    @Test("Live feed outbox pruning is a job of its own with a run history")
    func liveFeedOutbox() async throws {
        let server = try await Self.start()
        defer { server.stop() }
        try server.core.database.withConnection { try $0.executeScript(Self.seed) }
        let runner = Application.jobRunner(server.core)
        let before = try server.core.database.withConnection { try $0.query("SELECT count(*) FROM events")[0].decode(0, as: Int64.self) }
        _ = try runner.run(try Self.job("live-feed-outbox", of: server))
        let run = try #require(try runner.runs.recent(job: "live-feed-outbox", limit: 5).first)
        #expect(run.outcome == .succeeded && run.counts == ["events": 1])
        let after = try server.core.database.withConnection { try $0.query("SELECT count(*) FROM events")[0].decode(0, as: Int64.self) }
        #expect(after == before - 1)
        #expect(try runner.runs.recent(job: "retention", limit: 5).isEmpty, "the outbox job is not a retention run")
    }

    @Test("A run stopped by a crash is marked interrupted with its progress; the next run deletes what is left, no more")
    func crashResume() async throws {
        let server = try await Self.start()
        defer { server.stop() }
        let database = server.core.database
        try database.withConnection { connection in
            try connection.executeScript(
                """
                INSERT INTO op_log (device_id, op_id, client_seq, entity_key, author_id, collection, record_id, status, result,
                                    fingerprint, body, received_at)
                SELECT 'd', CASE WHEN n = 8 THEN 'fresh' ELSE 'old-' || n END, n, 'r', 'u', 'jobs', 'r', 'applied', '{}', 'f', '{}',
                       CASE WHEN n = 8 THEN now() ELSE now() - interval '40 days' END
                FROM generate_series(1, 8) AS n;
                """)
        }
        let runner = Application.jobRunner(server.core)
        let store = PostgresRetentionStore(database: database)
        let cutoffs = RetentionCutoffs(settings: ServerSettings(), now: Date(), webSessionIdleTimeout: 1800)
        // What a process that died after two committed batches of two leaves behind.
        let dead = try runner.runs.begin(job: "retention", requestedBy: nil)
        for _ in 0..<2 { #expect(try store.delete(.opResults, cutoffs, limit: 2) == 2) }
        try runner.runs.progress(dead, done: 4, total: 7, counts: ["opResults": 4])

        let job = RetentionJob(
            name: "retention", summary: "test", pass: RetentionPass(store: store, rules: [.opResults], batchSize: 2), settings: server.core.settings,
            webSessionIdleTimeout: 1800, minutes: { $0.retentionJobMinutes })
        let result = try runner.run(job)
        guard case .ran(let id, .succeeded) = result else {
            Issue.record("\(result)")
            return
        }
        let runs = try runner.runs.recent(job: "retention", limit: 5)
        #expect(runs.map(\.id) == [id, dead])
        #expect(runs.last?.outcome == .interrupted && runs.last?.counts == ["opResults": 4] && runs.last?.finishedAt != nil)
        #expect(runs.first?.counts == ["opResults": 3] && runs.first?.done == 3 && runs.first?.total == 3)
        let left = try database.withConnection { try $0.query("SELECT op_id FROM op_log").map { try $0.decode(0, as: String.self) } }
        #expect(left == ["fresh"])
    }

    @Test("A failing job is recorded as failed with its error and the counts it reached")
    func failure() async throws {
        let server = try await Self.start()
        defer { server.stop() }
        let runner = Application.jobRunner(server.core)
        let result = try runner.run(FailingJob())
        guard case .ran(_, .failed) = result else {
            Issue.record("\(result)")
            return
        }
        let run = try #require(try runner.runs.recent(job: FailingJob().name, limit: 1).first)
        #expect(run.outcome == .failed && run.error == "disk on fire" && run.counts == ["things": 2] && run.done == 2 && run.total == 5)
    }
}

/// A job that reports some progress, then fails.
struct FailingJob: Job {
    struct Failure: Error, CustomStringConvertible {
        var description: String { "disk on fire" }
    }

    let name = "test-failing"
    let summary = "Fails."

    func schedule(in settings: ServerSettings) -> JobSchedule { JobSchedule(minutes: 60) }

    func run(_ progress: JobProgress) throws {
        try progress.report(done: 2, total: 5, counts: ["things": 2])
        throw Failure()
    }
}
