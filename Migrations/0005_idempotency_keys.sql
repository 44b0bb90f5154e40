-- Idempotency keys of requests that are not ops (POST /v1/orders): the answer to the
-- first request with a key, so a retry gets the same answer instead of a second order.

-- One completed request per (user, endpoint, key). The row is written in the same
-- transaction as the effects of the request, so a row exists exactly when the request
-- took effect. A request still in flight is not a row: it holds a transaction-scoped
-- advisory lock on the key (see Storage/Orders/IdempotencyKeys.swift), which PostgreSQL
-- drops when the transaction ends for any reason, a crash included.
CREATE TABLE idempotency_keys (
    user_id     text  NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    -- Which operation the key belongs to, e.g. 'POST /v1/orders'.
    endpoint    text  NOT NULL,
    key         text  NOT NULL,
    -- SHA-256 (hex) of the canonical JSON of the request body.
    fingerprint text  NOT NULL,
    -- The response as first sent: replays answer these exact bytes.
    status      integer NOT NULL,
    body        bytea NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, endpoint, key)
);
-- For a retention job (keys need to outlive client retries, not much more).
CREATE INDEX idempotency_keys_created_at ON idempotency_keys (created_at);
