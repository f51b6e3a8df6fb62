-- The MCP server's OAuth 2.1 authorization server keeps its state here, so every instance behind a
-- load balancer sees the same clients, consents, codes and tokens. Codes, tokens and consent
-- request ids are stored as SHA-256 hashes: a copy of the database holds nothing that signs in.

-- Clients registered through dynamic client registration (RFC 7591). Every client is public (no
-- secret); the client id is an identifier, not a credential. The pre-registered id is configuration.
CREATE TABLE mcp_oauth_client (
  client_id   text PRIMARY KEY,
  metadata    jsonb NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);

-- An authorization request waiting for the admin's answer on the consent page.
CREATE TABLE mcp_oauth_request (
  id_hash         text PRIMARY KEY,
  client_id       text NOT NULL,
  redirect_uri    text NOT NULL,
  scope           text NOT NULL,
  code_challenge  text NOT NULL,
  state           text,
  resource        text NOT NULL,
  expires_at      timestamptz NOT NULL
);
CREATE INDEX mcp_oauth_request_expiry ON mcp_oauth_request (expires_at);

-- Authorization codes: one use each; a second use revokes every token of the grant.
CREATE TABLE mcp_oauth_code (
  code_hash       text PRIMARY KEY,
  grant_id        text NOT NULL,
  client_id       text NOT NULL,
  redirect_uri    text NOT NULL,
  scope           text NOT NULL,
  code_challenge  text NOT NULL,
  resource        text NOT NULL,
  expires_at      timestamptz NOT NULL,
  used_at         timestamptz
);
CREATE INDEX mcp_oauth_code_expiry ON mcp_oauth_code (expires_at);

-- Access and refresh tokens of one grant (one consent). A refresh token is used once: the next one
-- replaces it, and presenting a used one again revokes the whole grant (a stolen token was replayed).
CREATE TABLE mcp_oauth_token (
  token_hash  text PRIMARY KEY,
  kind        text NOT NULL CHECK (kind IN ('access', 'refresh')),
  grant_id    text NOT NULL,
  client_id   text NOT NULL,
  scope       text NOT NULL,
  resource    text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL,
  used_at     timestamptz,
  revoked_at  timestamptz
);
CREATE INDEX mcp_oauth_token_grant ON mcp_oauth_token (grant_id);
CREATE INDEX mcp_oauth_token_expiry ON mcp_oauth_token (expires_at);

-- Who asked for what an audit row records: null for the service's own work, `mcp:<client>` for an
-- assistant's tool call.
ALTER TABLE audit_log ADD COLUMN actor text;
