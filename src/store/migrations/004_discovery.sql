-- Saved personas: the people a team looks for at its target accounts (seniority, department, position).
CREATE TABLE persona (
  name        text PRIMARY KEY,
  description text,
  filters     jsonb NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);

-- One row per partner person discovery acted on, per connection. The primary key is the claim: the
-- instance whose insert wins looks the person up and creates or links the record; a second run, on any
-- instance, finds the row and creates nobody twice. A claim whose holder died before settling it can be
-- taken over once it is stale.
CREATE TABLE discovered_person (
  connection   text NOT NULL,
  person_id    text NOT NULL,
  object_type  text NOT NULL,
  company_id   text NOT NULL,
  record_id    text,
  action       text,
  persona      text,
  claimed_by   text NOT NULL,
  claimed_at   timestamptz NOT NULL DEFAULT now(),
  settled_at   timestamptz,
  PRIMARY KEY (connection, person_id)
);
CREATE INDEX discovered_person_created ON discovered_person (settled_at) WHERE action = 'created';
