-- A device id belongs to the user who first signed in with it (`devices.user_id`), so one
-- user's op log keys, clientSeq high-water mark and upload sessions are never another's.
-- Signing in claims the row; another user's sign-in with the id is refused until an
-- administrator releases the device.

-- Devices known only from their sign-ins are owned by their first signer-in.
INSERT INTO devices (device_id, user_id, first_seen_at)
SELECT DISTINCT ON (device_id) device_id, user_id, created_at FROM device_tokens ORDER BY device_id, created_at
ON CONFLICT (device_id) DO NOTHING;

UPDATE devices d SET user_id = first.user_id
FROM (SELECT DISTINCT ON (device_id) device_id, user_id FROM device_tokens ORDER BY device_id, created_at) first
WHERE d.device_id = first.device_id AND d.user_id IS NULL;

-- Sign-ins of other users on an owned device stop working.
UPDATE device_tokens t SET revoked_at = now()
FROM devices d
WHERE d.device_id = t.device_id AND d.user_id <> t.user_id AND t.revoked_at IS NULL;

-- Administrators' actions on accounts and devices: who, when, what, on which subject.
-- Written in the transaction that makes the change.
CREATE TABLE admin_audit (
    id       bigserial PRIMARY KEY,
    acted_at timestamptz NOT NULL DEFAULT now(),
    actor_id text REFERENCES users (id),
    action   text NOT NULL,
    subject  text NOT NULL,
    detail   jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX admin_audit_acted_at ON admin_audit (acted_at DESC, id DESC);
