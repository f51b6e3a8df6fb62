-- Where the service has read each event feed to (HubSpot's webhooks journal: the offset of the last entry
-- whose events are stored), per connection and CRM account: a restart reads on from it, and another
-- portal behind the same connection starts its own. Saved after the entry's jobs are stored, so a crash
-- in between reads the entry again, and the received-event keys drop what was already stored.
CREATE TABLE feed_position (
  connection  text NOT NULL,
  account     text NOT NULL,
  feed        text NOT NULL,
  position    text NOT NULL,
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (connection, account, feed)
);
