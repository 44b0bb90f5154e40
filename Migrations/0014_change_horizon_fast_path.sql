-- change_horizon() without the activity views when nothing is running (docs/decisions/0004).
-- Listing pg_locks joined with pg_stat_activity costs about half a millisecond, paid by every
-- pull and feed read; a snapshot with no transaction in progress has its horizon at hand
-- (pg_snapshot_xmax), so the views are read only when some transaction is running. The answer
-- is the one of migration 0011.
CREATE OR REPLACE FUNCTION change_horizon() RETURNS xid8 LANGUAGE sql STABLE AS $$
    WITH snapshot AS (SELECT pg_current_snapshot() AS s),
    running AS (SELECT x FROM snapshot, pg_snapshot_xip(s) AS x),
    -- pg_locks, not pg_stat_activity.backend_xid: that column is hidden from a role that does
    -- not own the session, and each transaction holds the lock on its own xid.
    elsewhere AS (
        SELECT l.transactionid::text::bigint AS xid
        FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
        WHERE l.locktype = 'transactionid' AND l.mode = 'ExclusiveLock' AND l.granted
          AND (a.datname <> current_database() OR a.backend_type <> 'client backend'))
    SELECT CASE
        WHEN NOT EXISTS (SELECT FROM running) THEN (SELECT pg_snapshot_xmax(s) FROM snapshot)
        ELSE coalesce(
            (SELECT x FROM running WHERE x::text::bigint % 4294967296 NOT IN (SELECT xid FROM elsewhere) ORDER BY x LIMIT 1),
            (SELECT pg_snapshot_xmax(s) FROM snapshot))
    END
$$;
