-- Small named values the service keeps between runs (e.g. the last catch-up sweep time).
CREATE TABLE setting (
  key         text PRIMARY KEY,
  value       text NOT NULL,
  updated_at  timestamptz NOT NULL DEFAULT now()
);

-- What became of the record in this run (written, unchanged, skipped, ...), beside the free-text reason.
ALTER TABLE audit_log ADD COLUMN outcome text;
