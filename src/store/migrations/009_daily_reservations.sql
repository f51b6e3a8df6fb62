-- Reserve, then spend: a caller takes a share of a daily limit (discovery's records, partner credits) in
-- one upsert before spending any of it, and gives back what it did not use. The statement that takes
-- the share writes what it got here, beside the new value, and reads it back in the same RETURNING: the
-- row lock the upsert holds makes the two one step, whatever other instances do at the same moment.
ALTER TABLE daily_counter ADD COLUMN last_grant bigint NOT NULL DEFAULT 0;

-- Discovery's daily limit now counts in a daily counter (records created, plus those running runs hold).
-- Today's records created before this migration count from the start, so the limit is not met twice today.
INSERT INTO daily_counter (day, name, value)
SELECT (now() AT TIME ZONE 'UTC')::date, 'discovery_created', count(*)
  FROM discovered_person
 WHERE action = 'created' AND settled_at >= date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
HAVING count(*) > 0
ON CONFLICT (day, name) DO NOTHING;
