-- The admin page's charts: per-minute totals of what the service did (job outcomes, partner requests,
-- CRM calls per connection) and samples of gauges (queue depth, oldest waiting job). Every instance
-- adds its own counts to the same row, so the totals cover all of them; a gauge keeps the highest
-- sample of its minute. Kept for about five weeks (housekeeping prunes older rows).
CREATE TABLE stat_series (
  bucket  timestamptz NOT NULL,
  name    text NOT NULL,
  value   bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (bucket, name)
);
