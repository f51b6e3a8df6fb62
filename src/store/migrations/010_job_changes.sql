-- Job changes (issue 33). record_roles: the role (employer, title, start) each person record's last
-- partner lookup showed, what the next lookup is compared with; job_changes: every move detected,
-- with what was done about it. Both name the connection's account, as every row of state does.
CREATE TABLE record_roles (
  connection   text NOT NULL,
  object_type  text NOT NULL,
  record_id    text NOT NULL,
  person_id    text,
  company_id   text,
  domain       text,
  company_name text,
  title        text,
  started      text,
  seen_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (connection, object_type, record_id)
);

CREATE TABLE job_changes (
  id                bigserial PRIMARY KEY,
  connection        text NOT NULL,
  object_type       text NOT NULL,
  record_id         text NOT NULL,
  person_id         text,
  -- 'employer' (a different current employer) or 'new_role' (a newer start at the same one).
  kind              text NOT NULL,
  from_company_id   text,
  from_domain       text,
  from_company_name text,
  to_company_id     text,
  to_domain         text,
  to_company_name   text,
  old_title         text,
  new_title         text,
  started           text,
  reason            text NOT NULL,
  detected_at       timestamptz NOT NULL DEFAULT now(),
  -- What was done about it, by action name: {"properties": "done", "task": "failed: ..."}.
  actions           jsonb NOT NULL DEFAULT '{}'::jsonb
);
CREATE INDEX job_changes_detected ON job_changes (detected_at);
CREATE INDEX job_changes_record ON job_changes (connection, object_type, record_id);
