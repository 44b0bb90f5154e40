-- A failed or interrupted run stays on the dashboard until an admin has looked: the jobs page
-- (or "Mark as seen") records who looked and when. Runs that ended otherwise are never flagged.
ALTER TABLE job_runs ADD COLUMN acknowledged_by text, ADD COLUMN acknowledged_at timestamptz;
CREATE INDEX job_runs_unacknowledged ON job_runs (started_at) WHERE outcome IN ('failed', 'interrupted') AND acknowledged_at IS NULL;
