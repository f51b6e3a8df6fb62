-- A creation crm-enrich is about to send to a CRM, kept before the call and replaced by the created
-- records' ids (created_record) in one statement once the CRM answers. The CRM may announce a creation
-- before it answers; while such a mark stands, a lane holds back creation events of records it cannot
-- place yet instead of enriching its own creations a second time. A mark left by a process that died
-- counts for a short while only (CreatedRecords.underWay).
CREATE TABLE creation_under_way (
  id           text PRIMARY KEY,
  connection   text NOT NULL,
  account      text NOT NULL,
  object_type  text NOT NULL,
  started_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX creation_under_way_object ON creation_under_way (connection, account, object_type, started_at);
