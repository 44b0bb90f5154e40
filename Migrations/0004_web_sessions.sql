-- The back-office: browser sessions and the audit trail of settings changes.

-- One signed-in browser. The cookie carries a random session id; only its SHA-256 is
-- stored, so a copy of this table cannot be used to sign in. A session ends when it
-- has been idle too long (last_seen_at) or at expires_at, whichever comes first; the
-- idle limit is the server's configuration, so expired rows are purged by the server.
CREATE TABLE web_sessions (
    id_hash      bytea PRIMARY KEY,
    user_id      text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at   timestamptz NOT NULL,
    last_seen_at timestamptz NOT NULL,
    expires_at   timestamptz NOT NULL
);
CREATE INDEX web_sessions_user_id ON web_sessions (user_id);
CREATE INDEX web_sessions_last_seen_at ON web_sessions (last_seen_at);

-- Every change of a server setting: who, when, which key, old and new JSON value.
-- Written in the transaction that changes the setting.
CREATE TABLE settings_audit (
    id         bigserial PRIMARY KEY,
    changed_at timestamptz NOT NULL DEFAULT now(),
    changed_by text REFERENCES users (id),
    key        text NOT NULL,
    old_value  jsonb NOT NULL,
    new_value  jsonb NOT NULL
);
CREATE INDEX settings_audit_changed_at ON settings_audit (changed_at DESC, id DESC);
