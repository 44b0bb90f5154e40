import SQLite

/// The device database: one `device` row (identity, clientSeq counter, session, cursor,
/// what the server last said), the records as shown, the outbox of unacknowledged ops,
/// the issues the user must settle, and the photos with their upload state.
///
/// Every local edit writes its `records` row, its `outbox` row and the counter in one
/// transaction; every pulled page writes its records and the cursor in one transaction.
enum ClientSchema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-device-store") { db in try db.executeScript(version1) }
        return migrator
    }

    private static let version1 = """
        CREATE TABLE device (
            id                  INTEGER PRIMARY KEY CHECK (id = 1),
            device_id           TEXT    NOT NULL,
            -- The last clientSeq handed out; the next edit takes the one after it.
            last_client_seq     INTEGER NOT NULL DEFAULT 0,
            token               TEXT,
            user_json           TEXT,
            session             TEXT    NOT NULL DEFAULT 'signed_out'
                CHECK (session IN ('signed_out', 'active', 'expired', 'suspended')),
            cursor              TEXT,
            -- 1 while a full re-download (after CURSOR_EXPIRED) is under way.
            resyncing           INTEGER NOT NULL DEFAULT 0,
            limits_json         TEXT,
            limits_fetched_at   REAL,
            min_supported_app_version TEXT,
            -- Set by a 426 for the app version that got it.
            upgrade_minimum     TEXT,
            upgrade_app_version TEXT,
            clock_offset        REAL    NOT NULL DEFAULT 0,
            last_synced_at      REAL
        );

        -- `fields` is what the app shows: `server_fields` with the outbox's ops on top.
        CREATE TABLE records (
            collection    TEXT    NOT NULL,
            record_id     TEXT    NOT NULL,
            fields        TEXT,
            server_fields TEXT,
            server_seq    INTEGER,
            deleted_seq   INTEGER,
            conflict_id   TEXT,
            synced_at     REAL,
            resync_seen   INTEGER NOT NULL DEFAULT 1,
            PRIMARY KEY (collection, record_id)
        ) WITHOUT ROWID;

        -- `op_json` is the op exactly as it is sent, every time (same opId, same content).
        CREATE TABLE outbox (
            client_seq     INTEGER PRIMARY KEY,
            op_id          TEXT    NOT NULL UNIQUE,
            collection     TEXT    NOT NULL,
            record_id      TEXT    NOT NULL,
            schema_version INTEGER NOT NULL,
            op_json        TEXT    NOT NULL,
            state          TEXT    NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'deferred'))
        );
        CREATE INDEX outbox_record ON outbox (collection, record_id, client_seq);

        CREATE TABLE issues (
            op_id       TEXT    PRIMARY KEY,
            client_seq  INTEGER NOT NULL,
            collection  TEXT    NOT NULL,
            record_id   TEXT    NOT NULL,
            op_json     TEXT    NOT NULL,
            result_json TEXT    NOT NULL
        );
        CREATE INDEX issues_record ON issues (collection, record_id);

        CREATE TABLE photos (
            att_id       TEXT    PRIMARY KEY,
            position     INTEGER NOT NULL UNIQUE,
            collection   TEXT    NOT NULL,
            record_id    TEXT    NOT NULL,
            content_type TEXT    NOT NULL,
            file_name    TEXT    NOT NULL,
            total_bytes  INTEGER NOT NULL,
            chunk_bytes  INTEGER NOT NULL,
            sha256       TEXT    NOT NULL,
            chunk_sha256 TEXT    NOT NULL,
            state        TEXT    NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'uploaded', 'failed')),
            problem      TEXT,
            problem_code TEXT,
            uploaded_at  REAL
        );
        CREATE INDEX photos_record ON photos (collection, record_id);
        """
}
