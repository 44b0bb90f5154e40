import Postgres

/// Live data for settings previews: rows of each retention kind at several ages, and devices
/// that are stale, below version floors, or holding unfinished work.
enum SettingsPreviewScenario {
    /// Under windows of 35 days (op results) and 45 days (tombstones), the next retention run
    /// deletes 2 op results, 2 tombstones and 1 scope exit (the deferred op and the newer rows
    /// stay). `p-stale` (Paula, team north, 2.0.0) last synced 100 days ago; `p-old` (Omar, team
    /// south, 1.5.0) has 1 deferred op and 1 unfinished upload; `p-unknown` never said its version.
    static let seed = """
        INSERT INTO teams (id) VALUES ('north'), ('south') ON CONFLICT DO NOTHING;
        INSERT INTO users (id, username, role, password_hash, team_id)
        VALUES ('u-paula', 'paula', 'field', '!', 'north'), ('u-omar', 'omar', 'field', '!', 'south');
        INSERT INTO devices (device_id, user_id, app_version, last_sync_at)
        VALUES ('p-stale', 'u-paula', '2.0.0', now() - interval '100 days'),
               ('p-old', 'u-omar', '1.5.0', now() - interval '1 day'),
               ('p-new', 'u-paula', '3.0.0', now()),
               ('p-unknown', 'u-omar', NULL, NULL);
        INSERT INTO op_log (device_id, op_id, client_seq, entity_key, author_id, collection, record_id, status, result,
                            fingerprint, body, received_at)
        VALUES ('p-new', 'op-10d', 1, 'r', 'u-paula', 'jobs', 'r', 'applied', '{}', 'f', '{}', now() - interval '10 days'),
               ('p-new', 'op-40d', 2, 'r', 'u-paula', 'jobs', 'r', 'applied', '{}', 'f', '{}', now() - interval '40 days'),
               ('p-stale', 'op-80d', 1, 'r', 'u-paula', 'jobs', 'r', 'rejected', '{}', 'f', '{}', now() - interval '80 days'),
               ('p-old', 'op-deferred', 1, 'r', 'u-omar', 'jobs', 'r', 'deferred', '{}', 'f', '{}', now() - interval '80 days');
        INSERT INTO records (collection, record_id, payload, field_meta, server_seq, deleted_seq, schema_version, updated_at)
        VALUES ('jobs', 'gone-40d', '{}', '{}', 1, 1, 3, now() - interval '40 days'),
               ('jobs', 'gone-70d', '{}', '{}', 2, 2, 3, now() - interval '70 days'),
               ('jobs', 'gone-100d', '{}', '{}', 3, 3, 3, now() - interval '100 days');
        INSERT INTO scope_exits (scope_key, collection, record_id, seq, exited_at)
        VALUES ('user:u-paula', 'jobs', 'x', 1, now() - interval '40 days'), ('user:u-paula', 'jobs', 'y', 2, now() - interval '100 days');
        INSERT INTO attachments (id, device_id, att_id, user_id, collection, record_id, content_type, total_bytes, chunk_bytes,
                                 chunk_count, sha256, status, expires_at)
        VALUES ('00000000-0000-0000-0000-0000000000a1', 'p-old', 'photo-1', 'u-omar', 'jobs', 'r', 'image/jpeg', 10, 10, 1,
                repeat('a', 64), 'uploading', now() + interval '3 days');
        """

    /// The rows the seed puts past windows of 35 and 45 days, per retention rule.
    static let deletions = ["opResults": 2, "tombstones": 2, "scopeExits": 1, "idempotencyKeys": 0, "webSessions": 0, "deviceTokens": 0]

    static func load(_ database: PostgresClient) throws {
        try database.withConnection { try $0.executeScript(seed) }
    }
}
