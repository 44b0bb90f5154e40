-- Waiting for the writers running now without looking at the lock table again and again
-- (docs/decisions/0004, "Read-your-writes"). A pull or a live-feed read waits for the pushes in
-- flight when it arrives; the waits used to call change_horizon() every half millisecond, and
-- with writers running each call read pg_locks joined with pg_stat_activity (about 0.5 ms).
-- Under a steady stream of pushes that polling was about a tenth of PostgreSQL's CPU. Now the
-- writers are listed once, and each round asks the commit log whether they are still running.

-- The transactions running in `snapshot` that change_horizon() counts: those not positively
-- seen as another database's or a non-client backend's. Ascending.
CREATE FUNCTION snapshot_writers(snapshot pg_snapshot) RETURNS xid8[] LANGUAGE plpgsql STABLE AS $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_snapshot_xip(snapshot)) THEN
        RETURN '{}';
    END IF;
    -- pg_locks, not pg_stat_activity.backend_xid: that column is hidden from a role that does
    -- not own the session, and each transaction holds the lock on its own xid.
    RETURN ARRAY(
        SELECT x FROM pg_snapshot_xip(snapshot) AS x
        WHERE x::text::bigint % 4294967296 NOT IN (
            SELECT l.transactionid::text::bigint
            FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
            WHERE l.locktype = 'transactionid' AND l.mode = 'ExclusiveLock' AND l.granted
              AND (a.datname <> current_database() OR a.backend_type <> 'client backend'))
        ORDER BY x);
END
$$;

-- As before (migration 0014), with the writers listed by snapshot_writers().
CREATE OR REPLACE FUNCTION change_horizon() RETURNS xid8 LANGUAGE plpgsql STABLE AS $$
DECLARE
    snapshot pg_snapshot := pg_current_snapshot();
BEGIN
    RETURN coalesce((snapshot_writers(snapshot))[1], pg_snapshot_xmax(snapshot));
END
$$;

-- Waits, up to `timeout`, until the writers running in `snapshot` have ended, and returns those
-- still running at the end (empty when all ended). A transaction is running while the commit
-- log says 'in progress' (a prepared one included); the check reads no lock table.
CREATE FUNCTION await_writers(snapshot pg_snapshot, timeout interval) RETURNS xid8[] LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    running  xid8[] := snapshot_writers(snapshot);
    deadline timestamptz := clock_timestamp() + timeout;
BEGIN
    LOOP
        running := ARRAY(SELECT x FROM unnest(running) AS x WHERE pg_xact_status(x) = 'in progress' ORDER BY x);
        EXIT WHEN cardinality(running) = 0 OR clock_timestamp() >= deadline;
        PERFORM pg_sleep(0.0005);
    END LOOP;
    RETURN running;
END
$$;

-- Same contract as migration 0011's: waits (up to `timeout`) until every transaction that
-- change_horizon() would count and that was running when called has ended, and returns a
-- horizon a read started next may serve below. Every transaction below the call's xmax had
-- ended by then, or was one of the writers waited for, or is one change_horizon() leaves out;
-- so the horizon is the oldest writer still running, or that xmax when none is.
CREATE OR REPLACE FUNCTION await_change_horizon(timeout interval) RETURNS xid8 LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    snapshot pg_snapshot := pg_current_snapshot();
BEGIN
    RETURN coalesce((await_writers(snapshot, timeout))[1], pg_snapshot_xmax(snapshot));
END
$$;

-- Same contract as migration 0011's: the serverSeq numbers issued before the call, once every
-- transaction then running has ended (each writer has its transaction id before it draws a
-- number); NULL when they did not end within `timeout`.
CREATE OR REPLACE FUNCTION settled_server_seq(timeout interval) RETURNS bigint LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    issued bigint := (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM server_seq);
BEGIN
    IF cardinality(await_writers(pg_current_snapshot(), timeout)) > 0 THEN
        RETURN NULL;
    END IF;
    RETURN issued;
END
$$;
