-- record_change_json() as PostgreSQL can inline it into the records upsert (docs/decisions/0008).
-- A SQL function is inlined only when its body is no more volatile than it is declared; to_json()
-- is STABLE (it takes any type, and some types print by the session's settings), so every row
-- written called the function through the SQL-function executor instead, once for an insert
-- and twice for an upsert that updates: about a fifth of the upsert's CPU. json_object() is
-- IMMUTABLE and escapes values as to_json() does; the output is byte for byte the same, so rows
-- written before keep matching it.

-- `value` as a JSON string literal: json_object's `{"k" : <value>}` without its first seven and
-- its last character.
CREATE FUNCTION json_string(value text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT left(substr(json_object(ARRAY['k'], ARRAY[value])::text, 8), -1)
$$;

CREATE OR REPLACE FUNCTION record_change_json(collection text, record_id text, server_seq bigint, deleted_seq bigint, payload jsonb,
                                              schema_version integer, conflict_id text)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT '{"collection":' || json_string(collection) || ',"recordId":' || json_string(record_id)
        || ',"serverSeq":' || server_seq::text
        || CASE WHEN deleted_seq IS NULL THEN
               ',"type":"upsert","payload":' || payload::text || ',"schemaVersion":' || schema_version::text
               || CASE WHEN conflict_id IS NULL THEN '' ELSE ',"conflict":{"id":' || json_string(conflict_id) || ',"state":"open"}' END
           ELSE ',"type":"delete","tombstone":{"deletedServerSeq":' || deleted_seq::text || '}'
           END
        || '}'
$$;
