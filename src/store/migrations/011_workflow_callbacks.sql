-- HubSpot workflow steps that answered "blocked" and are completed later through HubSpot's callback
-- endpoint: kept here until the callback has been sent, so a restart or a HubSpot outage loses none.
-- `since_audit_id` is the newest audit row of the record when the step was asked for: the run that
-- settles after it is the step's outcome. `outputs` is set once that outcome is known.
CREATE TABLE workflow_callback (
  callback_id     text PRIMARY KEY,
  connection      text NOT NULL,
  object_type     text NOT NULL,
  record_id       text NOT NULL,
  since_audit_id  bigint NOT NULL,
  job_id          text,
  outputs         jsonb,
  attempts        int NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  last_error      text,
  created_at      timestamptz NOT NULL DEFAULT now(),
  completed_at    timestamptz
);

CREATE INDEX workflow_callback_due ON workflow_callback (next_attempt_at) WHERE completed_at IS NULL;
