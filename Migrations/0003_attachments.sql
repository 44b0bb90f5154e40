-- Resumable, content-addressed attachments: upload sessions, the chunks they received,
-- and the blobs finished uploads end in.

-- One row per distinct content. The bytes live in the blob store under the digest; the row
-- is written only after the file is durable, so a row always means the bytes exist.
CREATE TABLE blobs (
    sha256       text   PRIMARY KEY CHECK (sha256 ~ '^[0-9a-f]{64}$'),
    size         bigint NOT NULL CHECK (size > 0),
    -- The type declared by the first upload of these bytes; each attachment keeps its own.
    content_type text   NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now()
);

-- An upload session, and once complete the binding of an attachment id to its blob.
-- Attachment ids are chosen by devices, so they are unique per device: every session call
-- looks up (caller's device, attId), and another device's session stays invisible. `id`
-- is server-generated and names the session's chunk folder on disk.
CREATE TABLE attachments (
    id               uuid    PRIMARY KEY,
    device_id        text    NOT NULL,
    att_id           text    NOT NULL,
    user_id          text    NOT NULL REFERENCES users (id),
    collection       text    NOT NULL,
    record_id        text    NOT NULL,
    content_type     text    NOT NULL,
    total_bytes      bigint  NOT NULL CHECK (total_bytes > 0),
    chunk_bytes      integer NOT NULL CHECK (chunk_bytes > 0),
    chunk_count      integer NOT NULL CHECK (chunk_count > 0),
    sha256           text    NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
    -- Per-chunk digests declared at registration (optional).
    chunk_sha256     text[]  CHECK (chunk_sha256 IS NULL OR cardinality(chunk_sha256) = chunk_count),
    status           text    NOT NULL CHECK (status IN ('uploading', 'complete')),
    blob_sha256      text    REFERENCES blobs (sha256),
    created_at       timestamptz NOT NULL DEFAULT now(),
    last_activity_at timestamptz NOT NULL DEFAULT now(),
    -- last_activity_at + the uploadSessionHours setting; null once complete (never expires).
    expires_at       timestamptz,
    completed_at     timestamptz,
    UNIQUE (device_id, att_id),
    CHECK ((status = 'complete') = (blob_sha256 IS NOT NULL)),
    CHECK ((status = 'uploading') = (expires_at IS NOT NULL))
);
-- Content downloads and the sync store's "which of these attachment ids are finalized".
CREATE INDEX attachments_att_id ON attachments (att_id);
-- The per-record byte total checked at registration.
CREATE INDEX attachments_record ON attachments (collection, record_id);
-- Sweeping expired sessions and counting a device's open ones.
CREATE INDEX attachments_expiry ON attachments (expires_at) WHERE status = 'uploading';
CREATE INDEX attachments_open_by_device ON attachments (device_id) WHERE status = 'uploading';

-- Chunks received by an open session; dropped when it completes or expires.
CREATE TABLE attachment_chunks (
    attachment_id uuid    NOT NULL REFERENCES attachments (id) ON DELETE CASCADE,
    chunk_index   integer NOT NULL CHECK (chunk_index >= 0),
    sha256        text    NOT NULL,
    size          integer NOT NULL,
    received_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (attachment_id, chunk_index)
);
