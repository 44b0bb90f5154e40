public import Foundation
public import Postgres
public import SyncEngine

/// The `job_runs` table: each write is one short statement, committed at once, so an admin
/// sees a run's progress while it runs and a crash leaves the run's last progress behind.
public struct PostgresJobRunStore: JobRunStore {
    let database: PostgresClient

    public init(database: PostgresClient) {
        self.database = database
    }

    public func begin(job: String, requestedBy: String?) throws -> Int64 {
        try database.transaction { connection in
            _ = try connection.execute(
                """
                UPDATE job_runs SET outcome = 'interrupted', finished_at = now() WHERE job = \(job) AND outcome = 'running'
                """)
            return try connection.query(
                """
                INSERT INTO job_runs (job, requested_by) VALUES (\(job), \(requestedBy)) RETURNING id
                """)[0].decode(0, as: Int64.self)
        }
    }

    public func progress(_ run: Int64, done: Int, total: Int?, counts: [String: Int]) throws {
        let counts = try PostgresJSON(encoding: counts)
        _ = try database.connection { connection in
            try connection.execute(
                """
                UPDATE job_runs SET done = \(Int64(done)), total = \(total.map(Int64.init)), counts = \(counts)
                WHERE id = \(run) AND outcome = 'running'
                """)
        }
    }

    public func finish(_ run: Int64, outcome: JobRun.Outcome, counts: [String: Int], error: String?) throws {
        let counts = try PostgresJSON(encoding: counts)
        _ = try database.connection { connection in
            try connection.execute(
                """
                UPDATE job_runs SET outcome = \(outcome.rawValue), finished_at = now(), counts = \(counts), error = \(error)
                WHERE id = \(run)
                """)
        }
    }

    public func lastStart(job: String) throws -> Date? {
        try database.connection { connection in
            try connection.query("SELECT max(started_at) FROM job_runs WHERE job = \(job)")[0].decode(0, as: Date?.self)
        }
    }

    public func recent(job: String, limit: Int) throws -> [JobRun] {
        try runs("\(unescaped: Self.select) WHERE r.job = \(job) ORDER BY r.started_at DESC, r.id DESC LIMIT \(Int64(max(limit, 0)))")
    }

    public func run(_ id: Int64) throws -> JobRun? {
        try runs("\(unescaped: Self.select) WHERE r.id = \(id)").first
    }

    public func unacknowledgedFailures(limit: Int) throws -> [JobRun] {
        try runs(
            """
            \(unescaped: Self.select) WHERE r.outcome IN ('failed', 'interrupted') AND r.acknowledged_at IS NULL
            ORDER BY r.started_at DESC, r.id DESC LIMIT \(Int64(max(limit, 0)))
            """)
    }

    public func acknowledgeFailures(by userId: String, runs: [Int64]?) throws -> Int {
        try database.connection { connection in
            try connection.execute(
                """
                UPDATE job_runs SET acknowledged_by = \(userId), acknowledged_at = now()
                WHERE outcome IN ('failed', 'interrupted') AND acknowledged_at IS NULL
                  AND (\(runs)::bigint[] IS NULL OR id = ANY(\(runs)::bigint[]))
                """)
        }
    }

    /// Runs with who asked by name, `job_runs r`: what each query above filters.
    private static let select = """
        SELECT r.id, r.job, r.requested_by, u.username, r.started_at, r.finished_at, r.outcome, r.counts, r.done, r.total, r.error
        FROM job_runs r LEFT JOIN users u ON u.id = r.requested_by
        """

    private func runs(_ query: PostgresQuery) throws -> [JobRun] {
        try database.connection { connection in try connection.query(query).map(Self.decode) }
    }

    private static func decode(_ row: PostgresRow) throws -> JobRun {
        let (id, job, requestedBy, requestedByName, startedAt, finishedAt, outcome, counts, done, total, error) = try row.decode(
            (Int64, String, String?, String?, Date, Date?, String, PostgresJSON, Int64, Int64?, String?).self)
        return JobRun(
            id: id, job: job, requestedBy: requestedBy, requestedByName: requestedByName, startedAt: startedAt, finishedAt: finishedAt,
            outcome: JobRun.Outcome(rawValue: outcome) ?? .failed, counts: try counts.decode([String: Int].self), done: Int(done),
            total: total.map(Int.init), error: error)
    }
}
