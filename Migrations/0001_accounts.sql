-- Accounts: teams, users, device tokens; server settings and secrets.

CREATE TABLE teams (
    id         text PRIMARY KEY,
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE users (
    id            text PRIMARY KEY,
    username      text NOT NULL,
    role          text NOT NULL CHECK (role IN ('field', 'supervisor', 'dispatcher', 'admin')),
    team_id       text REFERENCES teams (id),
    password_hash text NOT NULL,
    suspended     boolean NOT NULL DEFAULT false,
    created_at    timestamptz NOT NULL DEFAULT now()
);
-- User names are matched case-insensitively: "Ana" and "ana" are one account.
CREATE UNIQUE INDEX users_username_key ON users (lower(username));
CREATE INDEX users_team_id ON users (team_id);

-- Only the SHA-256 of a device token is stored; the token itself is shown once.
CREATE TABLE device_tokens (
    token_hash   bytea PRIMARY KEY,
    user_id      text NOT NULL REFERENCES users (id),
    device_id    text NOT NULL,
    platform     text,
    app_version  text,
    created_at   timestamptz NOT NULL DEFAULT now(),
    expires_at   timestamptz NOT NULL,
    revoked_at   timestamptz
);
CREATE INDEX device_tokens_user_id ON device_tokens (user_id);

CREATE TABLE settings (
    key        text PRIMARY KEY,
    value      jsonb NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now(),
    updated_by text REFERENCES users (id)
);

-- Server-generated keys (cursor signing, CSRF), created on first start.
CREATE TABLE server_secrets (
    name       text PRIMARY KEY,
    value      bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
