-- Redirect URIs the admin has confirmed, by allowing a sign-in that goes back to them with the admin
-- token. Only these (and the pre-registered client's configured ones) receive an error or a denial
-- by an automatic redirect; any other client's errors are shown on a page of this service instead, so
-- its own origin cannot be used to bounce a browser to an address nobody vouched for (RFC 9700 4.11.2).
-- A loopback URI is kept without its port (a native client may listen on any port).
CREATE TABLE mcp_oauth_redirect (
  client_id     text NOT NULL,
  redirect_key  text NOT NULL,
  confirmed_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (client_id, redirect_key)
);

-- When a registered client was last given a token: clients unused for long are dropped.
ALTER TABLE mcp_oauth_client ADD COLUMN last_used_at timestamptz;
