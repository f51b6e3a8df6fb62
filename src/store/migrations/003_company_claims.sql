-- One row per employer domain that crm-enrich decided to create a company for, per connection. The
-- primary key is the claim: the instance whose insert wins creates the company; every other instance,
-- contact and retry reads the id from here instead of creating a second one (or waiting for the CRM's
-- search index to show the first).
CREATE TABLE company_claim (
  connection  text NOT NULL,
  domain      text NOT NULL,
  company_id  text,
  claimed_by  text NOT NULL,
  claimed_at  timestamptz NOT NULL DEFAULT now(),
  created_at  timestamptz,
  PRIMARY KEY (connection, domain)
);

-- Domains held by more than one company in the CRM: linked to the oldest, reported, never merged.
CREATE TABLE company_duplicate (
  connection   text NOT NULL,
  domain       text NOT NULL,
  company_ids  text[] NOT NULL,
  seen_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (connection, domain)
);

-- The company record a person record was linked with, and why (matched by domain, created, ...).
ALTER TABLE enrichment_state ADD COLUMN company_id text, ADD COLUMN company_reason text;

-- Companies whose name is an employer's but whose domain and partner id are not: never linked by name
-- alone, reported for an admin to look at.
CREATE TABLE company_near_match (
  connection   text NOT NULL,
  domain       text NOT NULL,
  name         text NOT NULL,
  company_ids  text[] NOT NULL,
  seen_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (connection, domain)
);
