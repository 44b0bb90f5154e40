import Postgres

extension BackOfficeSeeder {
    /// An `assignments` record for every seeded report (the id its `assignmentId` names), for
    /// the report's field user and team: due over two months, one in three done.
    func seedAssignments(on connection: PostgresConnection) throws {
        try connection.execute(
            """
            WITH reports AS (
              SELECT payload->>'assignmentId' AS id, payload->>'assigneeId' AS assignee, payload->>'teamId' AS team, user_scope, team_scope,
                     created_at, row_number() OVER (ORDER BY record_id) AS n
              FROM records WHERE collection = 'reports'),
            first AS (SELECT \(unescaped: SeedSQL.reserve("(SELECT count(*) FROM reports)")) AS seq),
            shaped AS (
              SELECT reports.*, first.seq + n AS seq,
                     jsonb_build_object('title', 'Inspection ' || id, 'siteId', 'site-' || n % 500,
                                        'dueDate', to_char(date '2026-12-01' + (n % 60)::int, 'YYYY-MM-DD'),
                                        'status', CASE WHEN n % 3 = 0 THEN 'done' ELSE 'open' END, 'assigneeId', assignee, 'teamId', team)
                       AS payload
              FROM reports, first)
            INSERT INTO records (collection, record_id, payload, field_meta, server_seq, user_scope, team_scope, schema_version,
                                 created_at, updated_at)
            SELECT 'assignments', id, payload, (SELECT jsonb_object_agg(name, jsonb_build_object('seq', seq)) FROM jsonb_object_keys(payload) name),
                   seq, user_scope, team_scope, 3, created_at, created_at
            FROM shaped
            """)
    }

    /// A handful of seeded assignment ids, spread over the data.
    public func assignmentSamples(count: Int = 10) throws -> [String] {
        try database.withConnection { connection in
            try connection.query(
                "SELECT record_id FROM records WHERE collection = 'assignments' ORDER BY md5(record_id) LIMIT \(count)"
            ).map { try $0.decode(0) }
        }
    }
}
