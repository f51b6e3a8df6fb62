-- Runs with search_path set to the store's schema (crm_enrich unless configured otherwise).

-- Keys of every CRM event ever accepted, so an event redelivered hours later (after its job is done
-- and gone) is still recognised. The key is stored hashed: connector keys may carry property values.
CREATE TABLE received_event (
  key_hash     text PRIMARY KEY,
  connection   text NOT NULL,
  object_type  text NOT NULL,
  record_id    text NOT NULL,
  queue        text NOT NULL,
  received_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX received_event_record ON received_event (connection, object_type, record_id);
CREATE INDEX received_event_age ON received_event (received_at);

CREATE TABLE enrichment_state (
  connection        text NOT NULL,
  object_type       text NOT NULL,
  record_id         text NOT NULL,
  status            text NOT NULL CHECK (status IN ('enriched', 'no_match', 'failed', 'skipped')),
  partner_id        text,
  match_key         text,
  market            text,
  last_enriched_at  timestamptz,
  next_refresh_at   timestamptz,
  last_error        text,
  data_hash         text,
  written           jsonb NOT NULL DEFAULT '{}'::jsonb,
  updated_at        timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (connection, object_type, record_id)
);
-- Picking the next stale records of one CRM object is a range scan of this index, at any table size.
CREATE INDEX enrichment_state_due ON enrichment_state (connection, object_type, next_refresh_at, record_id)
  WHERE next_refresh_at IS NOT NULL;

CREATE TABLE lookup_cache (
  kind        text NOT NULL CHECK (kind IN ('person', 'company')),
  id_type     text NOT NULL,
  value       text NOT NULL,
  market      text NOT NULL DEFAULT '',
  hit         boolean NOT NULL,
  response    jsonb,
  fetched_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL,
  PRIMARY KEY (kind, id_type, value, market)
);
CREATE INDEX lookup_cache_expiry ON lookup_cache (expires_at);

CREATE TABLE audit_log (
  id           bigserial PRIMARY KEY,
  connection   text NOT NULL,
  object_type  text NOT NULL,
  record_id    text NOT NULL,
  property     text,
  old_value    text,
  new_value    text,
  rule         text,
  reason       text,
  job_id       text,
  at           timestamptz NOT NULL DEFAULT now(),
  CHECK (property IS NOT NULL OR reason IS NOT NULL)
);
CREATE INDEX audit_log_record ON audit_log (connection, object_type, record_id, id DESC);

CREATE TABLE mapping_version (
  id           bigserial PRIMARY KEY,
  crm          text NOT NULL,
  object_type  text NOT NULL,
  version      integer NOT NULL,
  document     text NOT NULL,
  format       text NOT NULL CHECK (format IN ('yaml', 'json')),
  author       text NOT NULL,
  comment      text NOT NULL DEFAULT '',
  created_at   timestamptz NOT NULL DEFAULT now(),
  active       boolean NOT NULL DEFAULT false,
  UNIQUE (crm, object_type, version)
);
CREATE UNIQUE INDEX mapping_version_one_active ON mapping_version (crm, object_type) WHERE active;

CREATE TABLE cron_claim (
  key         text PRIMARY KEY,
  owner       text NOT NULL,
  claimed_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL
);
CREATE INDEX cron_claim_expiry ON cron_claim (expires_at);

CREATE TABLE daily_counter (
  day    date NOT NULL,
  name   text NOT NULL,
  value  bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (day, name)
);
