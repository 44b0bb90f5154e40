import Postgres

extension BackOfficeSeeder {
    /// The op log in one statement: every device's ops, numbered from the server sequence like
    /// any change, with the body, result and (while deferred) pending op
    /// shaped as the push path writes them.
    func seedJournal(_ volume: BackOfficeVolume, on connection: PostgresConnection) throws {
        try connection.execute(
            """
            WITH p AS (SELECT \(volume.devices)::int AS devices, \(volume.opsPerDevice)::int AS per_device,
                              \(volume.openConflicts)::int AS open_conflicts),
            base AS (SELECT \(unescaped: SeedSQL.reserve("(SELECT devices * per_device FROM p)")) AS first),
            ops AS (
              SELECT p.*, d, k, k / 4 AS r, k % 4 AS s, v.device_id, v.user_id AS author_id, u.team_id,
                     base.first + d * p.per_device + k + 1 AS seq,
                     v.last_sync_at - (p.per_device - 1 - k) * interval '97 minutes' AS received_at,
                     CASE WHEN k / 4 = 1 THEN 'orders' WHEN k / 4 % 5 = 4 THEN 'reports' WHEN k / 4 % 5 = 3 THEN 'visits' ELSE 'jobs' END
                       AS collection
              FROM p, base, generate_series(0, p.devices - 1) d CROSS JOIN generate_series(0, p.per_device - 1) k
              JOIN devices v ON v.device_id = \(unescaped: SeedSQL.device("d")) JOIN users u ON u.id = v.user_id),
            decided AS (
              SELECT ops.*, collection || '-' || d || '-' || r AS record_id, device_id || '-op-' || (k + 1) AS op_id,
                     CASE WHEN collection = 'reports' AND s IN (1, 3) AND r / 5 * devices + d < open_conflicts THEN 'conflict'
                          WHEN d % 10 = 0 AND s >= 2 AND k >= per_device * 2 / 5 THEN 'deferred'
                          WHEN s >= 1 AND (d * 19 + k * 29) % 100 < 4 THEN 'rejected'
                          ELSE 'applied' END AS status
              FROM ops),
            coded AS (
              SELECT decided.*,
                     CASE status WHEN 'conflict' THEN 'REVIEW_REQUIRED'
                                 WHEN 'deferred' THEN CASE collection WHEN 'reports' THEN 'DEPENDENCY_PENDING' ELSE 'AWAITING_PREDECESSOR' END
                                 WHEN 'rejected' THEN (ARRAY['VALIDATION_FAILED', 'TRANSITION_NOT_ALLOWED', 'OUT_OF_SCOPE'])[k % 3 + 1]
                     END AS code,
                     jsonb_build_object('opId', op_id, 'clientSeq', k + 1, 'collection', collection, 'recordId', record_id,
                                        'type', CASE s WHEN 0 THEN 'create' ELSE 'update' END,
                                        'occurredAt', \(unescaped: SeedSQL.rfc3339("received_at - interval '25 minutes'")),
                                        'fields', \(unescaped: Self.changedFields))
                       || CASE WHEN s > 0 THEN jsonb_build_object('baseServerSeq', seq - 1) ELSE '{}' END AS body
              FROM decided),
            resulted AS (
              SELECT coded.*, jsonb_strip_nulls(jsonb_build_object(
                       'opId', op_id, 'status', status, 'code', code, 'message', \(unescaped: Self.message),
                       'serverSeq', CASE WHEN status = 'applied' THEN seq END, 'recordId', record_id,
                       'conflictId', CASE WHEN status = 'conflict' THEN 'cf-' || op_id END,
                       'missing', CASE code WHEN 'DEPENDENCY_PENDING' THEN jsonb_build_array('att-' || op_id)
                                            WHEN 'AWAITING_PREDECESSOR' THEN jsonb_build_array(per_device * 2 / 5) END)) AS result
              FROM coded)
            INSERT INTO op_log (device_id, op_id, client_seq, entity_key, author_id, collection, record_id, status, code, result,
                                fingerprint, body, pending, server_seq, received_at, decided_at)
            SELECT device_id, op_id, k + 1, record_id, author_id, collection, record_id, status, code, result, md5(op_id), body,
                   CASE WHEN status = 'deferred' THEN jsonb_build_object(
                     'op', body, 'schemaVersion', 3, 'fingerprint', md5(op_id), 'result', result,
                     'author', jsonb_build_object('userId', author_id, 'role', 'field', 'teamId', team_id, 'deviceId', device_id,
                                                  'teamMemberIds', '[]'::jsonb),
                     -- Foundation's default date encoding: seconds since 2001-01-01.
                     'receivedAt', extract(epoch FROM received_at) - 978307200) END,
                   CASE WHEN status = 'applied' THEN seq END, received_at,
                   CASE WHEN status = 'deferred' THEN received_at ELSE received_at + interval '1 second' END
            FROM resulted
            """)
    }

    /// An op's `fields` member (`{name: {old, new}}`) for change `s` of record `r` of device `d`.
    private static let changedFields = """
        CASE collection
          WHEN 'jobs' THEN CASE s
            WHEN 0 THEN jsonb_build_object('title', \(change("NULL", "'Job ' || r || ' of field-' || d")),
                                           'status', \(change("NULL", "'in_progress'")))
            WHEN 3 THEN jsonb_build_object('status', \(change("'in_progress'", "'complete'")))
            ELSE jsonb_build_object('labor_minutes', \(change("(s - 1) * 45", "s * 45"))) END
          WHEN 'visits' THEN CASE s
            WHEN 0 THEN jsonb_build_object('siteId', \(change("NULL", "'site-' || (d * 7 + r) % 500")), 'status', \(change("NULL", "'planned'")))
            ELSE jsonb_build_object('status', \(change(visitStatus("s"), visitStatus("s + 1")))) END
          WHEN 'reports' THEN CASE s
            WHEN 0 THEN jsonb_build_object('assignmentId', \(change("NULL", "'asg-' || d || '-' || r")), 'answers', \(change("NULL", answers("0"))))
            ELSE jsonb_build_object('answers', \(change(answers("s - 1"), answers("s")))) END
          ELSE CASE s
            WHEN 0 THEN jsonb_build_object('customerId', \(change("NULL", "'cust-' || d % 97")), 'lines', \(change("NULL", orderLines)),
                                           'note', \(change("NULL", "'Note 0'")))
            ELSE jsonb_build_object('note', \(change("'Note ' || (s - 1)", "'Note ' || s"))) END
        END
        """

    private static let message = """
        CASE code WHEN 'REVIEW_REQUIRED' THEN 'both revisions review'
                  WHEN 'DEPENDENCY_PENDING' THEN 'waiting for attachment upload'
                  WHEN 'AWAITING_PREDECESSOR' THEN 'waiting for earlier ops of this device'
                  WHEN 'VALIDATION_FAILED' THEN 'labor_minutes must be at least 0'
                  WHEN 'TRANSITION_NOT_ALLOWED' THEN 'status cannot go from done back to planned'
                  WHEN 'OUT_OF_SCOPE' THEN 'the record belongs to another team' END
        """

    /// `{"old": …, "new": …}` from two SQL expressions.
    private static func change(_ old: String, _ new: String) -> String {
        "jsonb_build_object('old', \(old), 'new', \(new))"
    }

    /// A visit's status after `n` changes (1: planned … 4: done).
    static func visitStatus(_ n: String) -> String {
        "(ARRAY['planned', 'checked_in', 'in_progress', 'done'])[\(n)]"
    }

    /// A report's answers after `n` updates.
    static func answers(_ n: String) -> String {
        "jsonb_build_object('q1', 'yes', 'q2', \(n), 'remarks', 'Checked on site')"
    }

    static let orderLines = #"'[{"sku": "SKU-1", "qty": 2}, {"sku": "SKU-7", "qty": 1}]'::jsonb"#
}
