-- State that belongs to one CRM account (issue 30). A connection (`hubspot`, `salesforce`) can be pointed
-- at another HubSpot portal or Salesforce org between two starts, and record ids repeat across accounts:
-- every row of state names the account it was made in, and every key includes it, so one account's state
-- is never read for another account's record.
--
-- Rows stored before this migration carry the empty account: "made before the account was known". The
-- first start that reads the connection's account (ConnectionAccounts.bind) gives them that account, so
-- an upgrade of a database whose account is unchanged keeps all of its state. Settings named for a
-- connection (a sweep's watermark, a backfill's run) are kept per account by name (`<name>@<account>`,
-- ConnectionAccounts.settingKey) and renamed at that same first start.

-- Each account seen behind each connection, and when: the newest `last_seen` is the one the state
-- belongs to now. A start that reads another account than the newest says so.
CREATE TABLE connection_account (
  connection  text NOT NULL,
  crm         text NOT NULL,
  account     text NOT NULL CHECK (account <> ''),
  first_seen  timestamptz NOT NULL DEFAULT now(),
  last_seen   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (connection, account)
);

ALTER TABLE received_event ADD COLUMN account text NOT NULL DEFAULT '';
DROP INDEX received_event_record;
CREATE INDEX received_event_record ON received_event (connection, account, object_type, record_id);

ALTER TABLE enrichment_state ADD COLUMN account text NOT NULL DEFAULT '';
ALTER TABLE enrichment_state DROP CONSTRAINT enrichment_state_pkey;
ALTER TABLE enrichment_state ADD PRIMARY KEY (connection, account, object_type, record_id);
DROP INDEX enrichment_state_due;
CREATE INDEX enrichment_state_due ON enrichment_state (connection, account, object_type, next_refresh_at, record_id)
  WHERE next_refresh_at IS NOT NULL;

ALTER TABLE audit_log ADD COLUMN account text NOT NULL DEFAULT '';
DROP INDEX audit_log_record;
CREATE INDEX audit_log_record ON audit_log (connection, account, object_type, record_id, id DESC);

ALTER TABLE company_claim ADD COLUMN account text NOT NULL DEFAULT '';
ALTER TABLE company_claim DROP CONSTRAINT company_claim_pkey;
ALTER TABLE company_claim ADD PRIMARY KEY (connection, account, domain);

ALTER TABLE company_duplicate ADD COLUMN account text NOT NULL DEFAULT '';
ALTER TABLE company_duplicate DROP CONSTRAINT company_duplicate_pkey;
ALTER TABLE company_duplicate ADD PRIMARY KEY (connection, account, domain);

ALTER TABLE company_near_match ADD COLUMN account text NOT NULL DEFAULT '';
ALTER TABLE company_near_match DROP CONSTRAINT company_near_match_pkey;
ALTER TABLE company_near_match ADD PRIMARY KEY (connection, account, domain);

ALTER TABLE discovered_person ADD COLUMN account text NOT NULL DEFAULT '';
ALTER TABLE discovered_person DROP CONSTRAINT discovered_person_pkey;
ALTER TABLE discovered_person ADD PRIMARY KEY (connection, account, person_id);

ALTER TABLE created_record ADD COLUMN account text NOT NULL DEFAULT '';
ALTER TABLE created_record DROP CONSTRAINT created_record_pkey;
ALTER TABLE created_record ADD PRIMARY KEY (connection, account, object_type, record_id);

ALTER TABLE pending_write ADD COLUMN account text NOT NULL DEFAULT '';
ALTER TABLE pending_write DROP CONSTRAINT pending_write_pkey;
ALTER TABLE pending_write ADD PRIMARY KEY (connection, account, object_type, record_id);

ALTER TABLE workflow_callback ADD COLUMN account text NOT NULL DEFAULT '';
CREATE INDEX workflow_callback_record ON workflow_callback (connection, account, object_type, record_id);

ALTER TABLE record_roles ADD COLUMN account text NOT NULL DEFAULT '';
ALTER TABLE record_roles DROP CONSTRAINT record_roles_pkey;
ALTER TABLE record_roles ADD PRIMARY KEY (connection, account, object_type, record_id);

ALTER TABLE job_changes ADD COLUMN account text NOT NULL DEFAULT '';
DROP INDEX job_changes_record;
CREATE INDEX job_changes_record ON job_changes (connection, account, object_type, record_id);
