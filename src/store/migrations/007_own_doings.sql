-- Records crm-enrich itself created in a CRM (an employer's company, a discovered person), kept the
-- moment the CRM gives their ids, so every instance tells the creation events they cause from records
-- made by anyone else, a script that reuses the service's token included. Pruned with the event keys.
CREATE TABLE created_record (
  connection   text NOT NULL,
  object_type  text NOT NULL,
  record_id    text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (connection, object_type, record_id)
);
CREATE INDEX created_record_created_at ON created_record (created_at);

-- Identity values (match properties) a lane is about to write, kept before the CRM call and removed
-- when the record's outcome is settled: the CRM's change event for them can come back before that, and
-- every instance must know it for the service's own write rather than a new identity to look up.
CREATE TABLE pending_write (
  connection   text NOT NULL,
  object_type  text NOT NULL,
  record_id    text NOT NULL,
  vals         jsonb NOT NULL,
  written_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (connection, object_type, record_id)
);
CREATE INDEX pending_write_written_at ON pending_write (written_at);
