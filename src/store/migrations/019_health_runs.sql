-- Data-health scans (issue 42): one row per scan of one CRM object, kept after it finishes so the report
-- shows the trend (before the first backfill, after each one, this month). A running scan keeps its
-- cursor and its counts so far here after every page: a scan that is stopped resumes where it was.
CREATE TABLE health_run (
  id           text PRIMARY KEY,
  connection   text NOT NULL,
  account      text NOT NULL DEFAULT '',
  object_type  text NOT NULL,
  status       text NOT NULL CHECK (status IN ('running', 'done')),
  cursor       text,
  counts       jsonb NOT NULL,
  started_at   timestamptz NOT NULL DEFAULT now(),
  finished_at  timestamptz
);
CREATE INDEX health_run_object ON health_run (connection, account, object_type, started_at DESC);
-- At most one running scan per object.
CREATE UNIQUE INDEX health_run_running ON health_run (connection, account, object_type) WHERE status = 'running';

-- Company domains a running scan has seen, so duplicates by domain are counted across pages and across a
-- resume without holding the domains in memory. Dropped when the scan finishes.
CREATE TABLE health_run_domain (
  run_id  text NOT NULL REFERENCES health_run (id) ON DELETE CASCADE,
  domain  text NOT NULL,
  PRIMARY KEY (run_id, domain)
);
