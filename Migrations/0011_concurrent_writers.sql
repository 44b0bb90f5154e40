-- Concurrent writers (docs/decisions/0004): changes are numbered from a sequence without a
-- lock, and pulls and live feeds order them by the id of the transaction that wrote them.

-- The horizon of the reading snapshot: the oldest transaction still running in it, or the next
-- one when none is. Every change of a lower transaction is in the snapshot; every change not in
-- it has a transaction at or above the horizon. Transactions of the cluster's other databases,
-- and of backends other than clients (autovacuum's ANALYZE takes an xid to write statistics),
-- cannot write these tables, so those seen running are left out (an xid is never reused; one
-- not found, such as a prepared transaction's, is kept): they do not hold pulls back.
CREATE FUNCTION change_horizon() RETURNS xid8 LANGUAGE sql STABLE AS $$
    WITH snapshot AS (SELECT pg_current_snapshot() AS s),
    -- pg_locks, not pg_stat_activity.backend_xid: that column is hidden from a role that does
    -- not own the session, and each transaction holds the lock on its own xid.
    elsewhere AS (
        SELECT l.transactionid::text::bigint AS xid
        FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
        WHERE l.locktype = 'transactionid' AND l.mode = 'ExclusiveLock' AND l.granted
          AND (a.datname <> current_database() OR a.backend_type <> 'client backend'))
    SELECT coalesce(
        (SELECT x FROM snapshot, pg_snapshot_xip(s) AS x
         WHERE x::text::bigint % 4294967296 NOT IN (SELECT xid FROM elsewhere) ORDER BY x LIMIT 1),
        (SELECT pg_snapshot_xmax(s) FROM snapshot))
$$;

-- Waits (up to `timeout`) until every transaction that `change_horizon()` would count and that
-- was running when called has ended, and returns the highest horizon it saw. A read started
-- next may serve everything below that value: each horizon computed at an earlier moment still
-- holds later (what ended stays ended), while the reader's own `change_horizon()` can come out
-- lower when a transaction of another database ends between its snapshot and its look at
-- `pg_locks` (unknown, so counted). So a device that pushed, then pulls, gets its own change
-- even while other writers are mid-transaction. Pushes last milliseconds; a longer writer is
-- waited for only until the timeout, and the read then serves what lies below it.
CREATE FUNCTION await_change_horizon(timeout interval) RETURNS xid8 LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    target   xid8 := pg_snapshot_xmax(pg_current_snapshot());
    deadline timestamptz := clock_timestamp() + timeout;
    reached  xid8 := change_horizon();
BEGIN
    WHILE reached < target AND clock_timestamp() < deadline LOOP
        PERFORM pg_sleep(0.0005);
        reached := greatest(reached, change_horizon());
    END LOOP;
    RETURN reached;
END
$$;

-- The highest serverSeq below which every number is settled (committed or rolled back), for
-- reads that resume from a bare serverSeq (`GET /v1/assignments?since=`): numbers issued before
-- the call, once every transaction then running has ended (each writer has its transaction id
-- before it draws a number). NULL when they did not end within `timeout`.
CREATE FUNCTION settled_server_seq(timeout interval) RETURNS bigint LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    issued   bigint := (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM server_seq);
    target   xid8 := pg_snapshot_xmax(pg_current_snapshot());
    deadline timestamptz := clock_timestamp() + timeout;
BEGIN
    WHILE change_horizon() < target LOOP
        IF clock_timestamp() >= deadline THEN
            RETURN NULL;
        END IF;
        PERFORM pg_sleep(0.0005);
    END LOOP;
    RETURN issued;
END
$$;

-- serverSeq numbers come from a sequence. A record is locked while a change to it is decided,
-- so its numbers still grow change after change.
CREATE SEQUENCE server_seq AS bigint;
SELECT setval('server_seq', greatest(value, 1), value > 0) FROM sequence_counter;
DROP TABLE sequence_counter;

-- The transaction that wrote a record's latest change. Rows written before this migration get
-- 0: they sort before every later change and among themselves by server_seq, as they were
-- paged before, so an existing cursor (a server_seq) is the position (0, server_seq).
ALTER TABLE records ADD COLUMN xid xid8 NOT NULL DEFAULT '0';
ALTER TABLE records ALTER COLUMN xid SET DEFAULT pg_current_xact_id();
DROP INDEX records_user_scope;
DROP INDEX records_team_scope;
CREATE INDEX records_position ON records (xid, server_seq);
CREATE INDEX records_user_scope ON records (user_scope, xid, server_seq) WHERE user_scope IS NOT NULL;
CREATE INDEX records_team_scope ON records (team_scope, xid, server_seq) WHERE team_scope IS NOT NULL;

ALTER TABLE scope_exits ADD COLUMN xid xid8 NOT NULL DEFAULT '0';
ALTER TABLE scope_exits ALTER COLUMN xid SET DEFAULT pg_current_xact_id();
DROP INDEX scope_exits_by_seq;
CREATE INDEX scope_exits_by_position ON scope_exits (scope_key, xid, seq);

-- Outbox ids: the writing transaction's id times 2^20 plus the row's place in that transaction,
-- so id order is (transaction, insertion) order and every id written later by a transaction
-- still running is above (its xid * 2^20). Feeds read only below change_horizon() * 2^20,
-- where nothing can commit any more. The place is counted
-- in a transaction-local setting; a transaction writes far fewer than 2^20 events.
CREATE FUNCTION next_event_id() RETURNS bigint LANGUAGE sql VOLATILE AS $$
    SELECT (pg_current_xact_id()::text::bigint << 20)
         + set_config('fieldsync.event_place',
                      (coalesce(nullif(current_setting('fieldsync.event_place', true), ''), '0')::bigint + 1)::text, true)::bigint
$$;

-- Ids issued so far all lie below this migration's xid * 2^20 (each earlier transaction wrote
-- fewer than 2^20 events), so new ids sort after them.
DO $$
BEGIN
    IF (SELECT coalesce(max(id), 0) FROM events) >= (pg_current_xact_id()::text::bigint << 20) THEN
        RAISE EXCEPTION 'events.id is already above the first transaction-ordered id';
    END IF;
END
$$;
ALTER TABLE events ALTER COLUMN id SET DEFAULT next_event_id();
DROP SEQUENCE events_id_seq;
