-- Pull pages without per-row JSON building (docs/decisions/0008): each record keeps the change
-- object pulls send for it, rendered when the row is written, and its field metadata as the
-- text it was written in.

-- A record's change object without its `fieldMeta` member (PROTOCOL.md, Pull). Declared
-- immutable so that a generated column may use it: its answer depends on its arguments alone
-- (the casts it makes are of text, numbers and jsonb, whatever the session's settings).
CREATE FUNCTION record_change_json(collection text, record_id text, server_seq bigint, deleted_seq bigint, payload jsonb,
                                   schema_version integer, conflict_id text)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT '{"collection":' || to_json(collection)::text || ',"recordId":' || to_json(record_id)::text
        || ',"serverSeq":' || server_seq::text
        || CASE WHEN deleted_seq IS NULL THEN
               ',"type":"upsert","payload":' || payload::text || ',"schemaVersion":' || schema_version::text
               || CASE WHEN conflict_id IS NULL THEN '' ELSE ',"conflict":{"id":' || to_json(conflict_id)::text || ',"state":"open"}' END
           ELSE ',"type":"delete","tombstone":{"deletedServerSeq":' || deleted_seq::text || '}'
           END
        || '}'
$$;

ALTER TABLE records
    ALTER COLUMN field_meta TYPE text USING field_meta::text,
    ADD COLUMN change_json text NOT NULL
        GENERATED ALWAYS AS (record_change_json(collection, record_id, server_seq, deleted_seq, payload, schema_version, conflict_id)) STORED;
