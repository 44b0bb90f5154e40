-- The back-office's figures without grouping the whole op log on every page view.

-- How many ops of each outcome every (device, author) pair has in the op log. Kept by the
-- statement triggers below in the transaction that writes the op log, so it is exactly as
-- current as the op log itself. The sync centre reads it per device, the team roll-up per
-- author: a few rows per device instead of every op. (No CHECK (ops >= 0): a decrement is
-- written as an upsert of a negative count, and PostgreSQL checks the proposed row before it
-- finds the conflict.)
CREATE TABLE op_log_counts (
    device_id text   NOT NULL,
    author_id text   NOT NULL,
    status    text   NOT NULL,
    ops       bigint NOT NULL,
    PRIMARY KEY (device_id, author_id, status)
);
CREATE INDEX op_log_counts_author ON op_log_counts (author_id);

-- Adds the rows a statement wrote and subtracts those it replaced or deleted. Counter rows
-- are written in key order, so statements that touch several devices (retention, released
-- deferred ops) lock them in the same order as each other and as a device's own push.
CREATE FUNCTION op_log_counts_track() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'TRUNCATE' THEN
        DELETE FROM op_log_counts;
    ELSIF TG_OP = 'INSERT' THEN
        INSERT INTO op_log_counts AS c (device_id, author_id, status, ops)
        SELECT device_id, author_id, status, count(*) FROM added_ops GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
        ON CONFLICT (device_id, author_id, status) DO UPDATE SET ops = c.ops + excluded.ops;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO op_log_counts AS c (device_id, author_id, status, ops)
        SELECT device_id, author_id, status, -count(*) FROM removed_ops GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
        ON CONFLICT (device_id, author_id, status) DO UPDATE SET ops = c.ops + excluded.ops;
    ELSE
        INSERT INTO op_log_counts AS c (device_id, author_id, status, ops)
        SELECT device_id, author_id, status, sum(delta) FROM (
            SELECT device_id, author_id, status, 1 AS delta FROM added_ops
            UNION ALL
            SELECT device_id, author_id, status, -1 FROM removed_ops) changes
        GROUP BY 1, 2, 3 HAVING sum(delta) <> 0 ORDER BY 1, 2, 3
        ON CONFLICT (device_id, author_id, status) DO UPDATE SET ops = c.ops + excluded.ops;
    END IF;
    RETURN NULL;
END
$$;

-- An upsert (INSERT ... ON CONFLICT DO UPDATE) fires both the INSERT and the UPDATE trigger,
-- each with its own rows.
CREATE TRIGGER op_log_counts_insert AFTER INSERT ON op_log REFERENCING NEW TABLE AS added_ops
    FOR EACH STATEMENT EXECUTE FUNCTION op_log_counts_track();
CREATE TRIGGER op_log_counts_update AFTER UPDATE ON op_log REFERENCING OLD TABLE AS removed_ops NEW TABLE AS added_ops
    FOR EACH STATEMENT EXECUTE FUNCTION op_log_counts_track();
CREATE TRIGGER op_log_counts_delete AFTER DELETE ON op_log REFERENCING OLD TABLE AS removed_ops
    FOR EACH STATEMENT EXECUTE FUNCTION op_log_counts_track();
CREATE TRIGGER op_log_counts_truncate AFTER TRUNCATE ON op_log
    FOR EACH STATEMENT EXECUTE FUNCTION op_log_counts_track();

-- The ops already logged (the migration's transaction holds the triggers' lock on op_log,
-- so no write slips between this count and the triggers).
INSERT INTO op_log_counts (device_id, author_id, status, ops)
SELECT device_id, author_id, status, count(*) FROM op_log GROUP BY 1, 2, 3;
