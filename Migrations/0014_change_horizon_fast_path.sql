-- change_horizon() at a fraction of its cost (docs/decisions/0004, 0008), with the answer of
-- migration 0011. Every pull, push and feed read calls it, and it cost about a millisecond:
-- - as a SQL function it was planned again on every call (about 0.4 ms); PL/pgSQL keeps its
--   plans for the session;
-- - it listed pg_locks joined with pg_stat_activity every time; a snapshot with no transaction
--   in progress has its horizon at hand (pg_snapshot_xmax), so the views are read only when
--   some transaction is running.
-- STABLE, as before: it reads the snapshot of the statement that calls it.
CREATE OR REPLACE FUNCTION change_horizon() RETURNS xid8 LANGUAGE plpgsql STABLE AS $$
DECLARE
    snapshot pg_snapshot := pg_current_snapshot();
    oldest   xid8;
BEGIN
    IF NOT EXISTS (SELECT FROM pg_snapshot_xip(snapshot)) THEN
        RETURN pg_snapshot_xmax(snapshot);
    END IF;
    -- pg_locks, not pg_stat_activity.backend_xid: that column is hidden from a role that does
    -- not own the session, and each transaction holds the lock on its own xid.
    SELECT x INTO oldest FROM pg_snapshot_xip(snapshot) AS x
    WHERE x::text::bigint % 4294967296 NOT IN (
        SELECT l.transactionid::text::bigint
        FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
        WHERE l.locktype = 'transactionid' AND l.mode = 'ExclusiveLock' AND l.granted
          AND (a.datname <> current_database() OR a.backend_type <> 'client backend'))
    ORDER BY x LIMIT 1;
    RETURN coalesce(oldest, pg_snapshot_xmax(snapshot));
END
$$;
