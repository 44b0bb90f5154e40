import Postgres

extension BackOfficeSeeder {
    /// The records the seeded ops made: one per (collection, record id) of the op log, in the
    /// state its applied ops left it, numbered by its latest applied op; a few jobs deleted.
    /// Orders: devices ending in 0–2 submitted theirs, 3–8 were confirmed, 9 rejected.
    func seedRecords(on connection: PostgresConnection) throws {
        try connection.execute(
            """
            WITH settled AS (
              SELECT collection, record_id, author_id, max(server_seq) AS seq, count(*) FILTER (WHERE status = 'applied') AS changes,
                     min(received_at) AS created_at, max(decided_at) FILTER (WHERE status = 'applied') AS updated_at,
                     split_part(record_id, '-', 2)::int AS d, split_part(record_id, '-', 3)::int AS r
              FROM op_log WHERE device_id LIKE 'dev-%' GROUP BY collection, record_id, author_id),
            shaped AS (
              SELECT settled.*, u.team_id,
                     jsonb_build_object('assigneeId', author_id, 'teamId', u.team_id) || CASE collection
                       WHEN 'jobs' THEN jsonb_build_object('title', 'Job ' || r || ' of field-' || d, 'labor_minutes', (changes - 1) * 45,
                                                           'status', CASE WHEN changes >= 4 THEN 'complete' ELSE 'in_progress' END)
                       WHEN 'visits' THEN jsonb_build_object('siteId', 'site-' || (d * 7 + r) % 500,
                                                             'status', \(unescaped: Self.visitStatus("changes")))
                       WHEN 'reports' THEN jsonb_build_object('assignmentId', 'asg-' || d || '-' || r, 'answers',
                                                              \(unescaped: Self.answers("changes - 1")), 'photos', '[]'::jsonb)
                       ELSE jsonb_build_object('customerId', 'cust-' || d % 97, 'lines', \(unescaped: Self.orderLines),
                                               'note', 'Note ' || (changes - 1),
                                               'status', CASE WHEN d % 10 < 3 THEN 'SUBMITTED' WHEN d % 10 < 9 THEN 'CONFIRMED' ELSE 'REJECTED' END)
                            || CASE WHEN d % 10 = 9 THEN jsonb_build_object('rejectionReason', 'Customer account on hold') ELSE '{}' END
                     END AS payload
              FROM settled JOIN users u ON u.id = settled.author_id)
            INSERT INTO records (collection, record_id, payload, field_meta, server_seq, user_scope, team_scope, deleted_seq,
                                 schema_version, created_at, updated_at)
            SELECT collection, record_id, payload,
                   (SELECT jsonb_object_agg(name, jsonb_build_object('seq', seq)) FROM jsonb_object_keys(payload) name),
                   seq, 'user:' || author_id, 'team:' || team_id, CASE WHEN collection = 'jobs' AND r % 7 = 6 AND d % 5 = 0 THEN seq END,
                   3, created_at, updated_at
            FROM shaped
            """)
    }

    /// A review-queue entry for every `conflict` op (all on reports): the older one of a
    /// record resolved by a dispatcher keeping the server's answers, the newer one open and
    /// flagged on its record.
    func seedConflicts(on connection: PostgresConnection) throws {
        let serverAnswers = "jsonb_build_object('q1', 'no', 'q2', 9, 'remarks', 'Corrected by the office')"
        try connection.execute(
            """
            INSERT INTO conflicts (id, collection, record_id, author_id, device_id, state, opened_at, scope_keys, entry)
            SELECT o.result->>'conflictId', o.collection, o.record_id, o.author_id, o.device_id, c.state, o.received_at,
                   ARRAY[r.user_scope, r.team_scope],
                   jsonb_build_object(
                     'id', o.result->>'conflictId', 'collection', o.collection, 'recordId', o.record_id, 'opId', o.op_id,
                     'deviceId', o.device_id, 'authorId', o.author_id, 'state', c.state,
                     'openedAt', \(unescaped: SeedSQL.rfc3339("o.received_at")),
                     'fields', jsonb_build_array(jsonb_build_object(
                       'field', 'answers', 'clientOld', o.body #> '{fields,answers,old}', 'clientNew', o.body #> '{fields,answers,new}',
                       'serverCurrent', \(unescaped: serverAnswers), 'serverSeq', r.server_seq)),
                     'deviceRevision', r.payload || jsonb_build_object('answers', o.body #> '{fields,answers,new}'),
                     'serverRevision', r.payload || jsonb_build_object('answers', \(unescaped: serverAnswers)))
                   || CASE c.state WHEN 'resolved' THEN jsonb_build_object('resolution', jsonb_build_object(
                        'choice', 'server', 'by', 'u-dispatch-0', 'serverSeq', r.server_seq,
                        'at', \(unescaped: SeedSQL.rfc3339("o.received_at + interval '3 hours'")))) ELSE '{}' END
            FROM op_log o
            JOIN records r ON r.collection = o.collection AND r.record_id = o.record_id
            CROSS JOIN LATERAL (SELECT CASE WHEN o.client_seq % 4 = 0 THEN 'open' ELSE 'resolved' END AS state) c
            WHERE o.status = 'conflict' AND o.device_id LIKE 'dev-%'
            """)
        try connection.execute(
            """
            UPDATE records r SET conflict_id = c.id FROM conflicts c
            WHERE c.state = 'open' AND c.device_id LIKE 'dev-%' AND r.collection = c.collection AND r.record_id = c.record_id
            """)
    }
}
