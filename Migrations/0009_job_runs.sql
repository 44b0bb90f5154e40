-- One row per run of a background job, written by whichever instance holds the job's lock:
-- what ran, who asked (NULL: the schedule; otherwise the admin), how far it got while it
-- runs (done of total, counts so far) and how it ended. A run still 'running' when the next
-- holder of the lock starts belonged to a process that died: it is marked 'interrupted'.
-- requested_by holds a user id without a foreign key: with one, every insert here would wait
-- on any lock of users (a job's start would stall behind an account change).
CREATE TABLE job_runs (
    id           bigserial PRIMARY KEY,
    job          text NOT NULL,
    requested_by text,
    started_at   timestamptz NOT NULL DEFAULT now(),
    finished_at  timestamptz,
    outcome      text NOT NULL DEFAULT 'running' CHECK (outcome IN ('running', 'succeeded', 'failed', 'interrupted')),
    counts       jsonb NOT NULL DEFAULT '{}',
    done         bigint NOT NULL DEFAULT 0,
    total        bigint,
    error        text,
    CHECK ((outcome = 'running') = (finished_at IS NULL))
);
CREATE INDEX job_runs_job_started ON job_runs (job, started_at DESC);
