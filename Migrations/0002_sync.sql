-- The sync engine's tables: records with per-field metadata, the op log, devices,
-- conflicts, scope exits for pulls, and the event outbox.

-- The global change sequence. A writing transaction locks this row right before it
-- numbers its changes and holds the lock until it commits, so sequence order is commit
-- order and a pull never misses a change that commits later with a lower number.
CREATE TABLE sequence_counter (
    singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    value     bigint NOT NULL
);
INSERT INTO sequence_counter (value) VALUES (0);

-- Current state of every record, tombstones included. A record's server_seq is the
-- sequence number of its latest change, so a delta pull is an index range scan over
-- server_seq: each record appears once, in its latest state.
CREATE TABLE records (
    collection     text   NOT NULL,
    record_id      text   NOT NULL,
    payload        jsonb  NOT NULL,
    field_meta     jsonb  NOT NULL,
    server_seq     bigint NOT NULL,
    user_scope     text,
    team_scope     text,
    deleted_seq    bigint,
    conflict_id    text,
    schema_version integer NOT NULL,
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (collection, record_id)
);
CREATE UNIQUE INDEX records_server_seq ON records (server_seq);
CREATE INDEX records_user_scope ON records (user_scope, server_seq) WHERE user_scope IS NOT NULL;
CREATE INDEX records_team_scope ON records (team_scope, server_seq) WHERE team_scope IS NOT NULL;
CREATE INDEX records_tombstones ON records (updated_at) WHERE deleted_seq IS NOT NULL;

-- "Record left scope key K at seq": lets a device that could see it through K drop it
-- (a pull `remove`). One row per (key, record), the latest exit.
CREATE TABLE scope_exits (
    scope_key  text   NOT NULL,
    collection text   NOT NULL,
    record_id  text   NOT NULL,
    seq        bigint NOT NULL,
    exited_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (scope_key, collection, record_id)
);
CREATE INDEX scope_exits_by_seq ON scope_exits (scope_key, seq);
CREATE INDEX scope_exits_exited_at ON scope_exits (exited_at);

-- Per-device ordering state.
CREATE TABLE devices (
    device_id        text PRIMARY KEY,
    user_id          text REFERENCES users (id),
    received_through bigint NOT NULL DEFAULT 0,
    app_version      text,
    platform         text,
    first_seen_at    timestamptz NOT NULL DEFAULT now(),
    last_sync_at     timestamptz
);
CREATE INDEX devices_user_id ON devices (user_id);

-- Every op ever received, with its stored result (replays answer from here).
CREATE TABLE op_log (
    device_id   text   NOT NULL,
    op_id       text   NOT NULL,
    client_seq  bigint NOT NULL,
    entity_key  text   NOT NULL,
    author_id   text   NOT NULL,
    collection  text   NOT NULL,
    record_id   text   NOT NULL,
    status      text   NOT NULL CHECK (status IN ('applied', 'conflict', 'rejected', 'deferred')),
    code        text,
    result      jsonb  NOT NULL,
    fingerprint text   NOT NULL,
    -- The op as the device sent it (the sync centre's journal shows it).
    body        jsonb  NOT NULL,
    -- While deferred: everything needed to re-attempt it (author, schema version, arrival).
    pending     jsonb,
    server_seq  bigint,
    occurred_at timestamptz,
    received_at timestamptz NOT NULL DEFAULT now(),
    decided_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (device_id, op_id)
);
CREATE INDEX op_log_deferred ON op_log (device_id, client_seq) WHERE status = 'deferred';
CREATE INDEX op_log_record ON op_log (collection, record_id);
CREATE INDEX op_log_received_at ON op_log (received_at) WHERE status <> 'deferred';

-- Conflicts waiting for (or settled by) a person. `entry` is the whole protocol entry;
-- the other columns exist to filter and order the queue.
CREATE TABLE conflicts (
    id         text PRIMARY KEY,
    collection text   NOT NULL,
    record_id  text   NOT NULL,
    author_id  text   NOT NULL,
    device_id  text   NOT NULL,
    state      text   NOT NULL CHECK (state IN ('open', 'resolved')),
    opened_at  timestamptz NOT NULL DEFAULT now(),
    scope_keys text[] NOT NULL,
    entry      jsonb  NOT NULL
);
CREATE INDEX conflicts_open ON conflicts (opened_at) WHERE state = 'open';
CREATE INDEX conflicts_record ON conflicts (collection, record_id);
CREATE INDEX conflicts_author ON conflicts (author_id);

-- The outbox: every applied change, conflict and sync, written in the transaction that
-- caused it and inserted under the sequence lock, so ids grow in commit order.
CREATE TABLE events (
    id         bigserial PRIMARY KEY,
    type       text   NOT NULL,
    data       jsonb  NOT NULL,
    audience   text[] NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX events_created_at ON events (created_at);
