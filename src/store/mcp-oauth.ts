/**
 * What the MCP authorization server remembers: registered clients, consent requests waiting for an
 * answer, authorization codes and tokens. Secrets arrive here already hashed (`*Hash` fields), so
 * neither this table nor a backup of it can sign anyone in. Each one-use step (a code, a refresh
 * token) is read and checked first, then consumed by one conditional UPDATE, so a refused request leaves
 * it for the right one and two instances can never both accept it.
 */
import type { Db } from './db.js';

export interface OAuthRequestRow {
  clientId: string;
  redirectUri: string;
  scope: string;
  codeChallenge: string;
  state: string | null;
  resource: string;
  expiresAt: Date;
}

export interface OAuthCodeRow {
  grantId: string;
  clientId: string;
  redirectUri: string;
  scope: string;
  codeChallenge: string;
  resource: string;
  expiresAt: Date;
}

export type TokenKind = 'access' | 'refresh';

/** A registered client never given a token is dropped after a day; one that was, after a month without a new one. */
const NEVER_USED_CLIENT = '1 day';
const UNUSED_CLIENT = '30 days';

export interface OAuthTokenRow {
  kind: TokenKind;
  grantId: string;
  clientId: string;
  scope: string;
  resource: string;
  expiresAt: Date;
}

/** A one-use secret taken: its row, `reused` when it had been taken (or revoked) before, or `unknown`. */
export type Consumed<T> = { kind: 'ok'; row: T } | { kind: 'reused'; grantId: string } | { kind: 'unknown' };

export class McpOAuthStore {
  constructor(
    private readonly db: Db,
    private readonly schema: string,
  ) {}

  private t(table: string): string {
    return `"${this.schema}".${table}`;
  }

  async saveClient(clientId: string, metadata: Record<string, unknown>): Promise<void> {
    await this.db.query(`INSERT INTO ${this.t('mcp_oauth_client')} (client_id, metadata) VALUES ($1, $2::jsonb)`, [
      clientId,
      JSON.stringify(metadata),
    ]);
  }

  async client(clientId: string): Promise<Record<string, unknown> | undefined> {
    const { rows } = await this.db.query<{ metadata: Record<string, unknown> | string }>(
      `SELECT metadata FROM ${this.t('mcp_oauth_client')} WHERE client_id = $1`,
      [clientId],
    );
    const metadata = rows[0]?.metadata;
    return typeof metadata === 'string' ? (JSON.parse(metadata) as Record<string, unknown>) : metadata;
  }

  /** Notes that a registered client was used (a token issued to it), at most once an hour. */
  async touchClient(clientId: string): Promise<void> {
    await this.db.query(
      `UPDATE ${this.t('mcp_oauth_client')} SET last_used_at = now()
       WHERE client_id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 hour')`,
      [clientId],
    );
  }

  /** Remembers that the admin allowed a sign-in going back to this redirect URI (its key, see redirectUriKey). */
  async confirmRedirect(clientId: string, redirectKey: string): Promise<void> {
    await this.db.query(
      `INSERT INTO ${this.t('mcp_oauth_redirect')} (client_id, redirect_key) VALUES ($1, $2)
       ON CONFLICT (client_id, redirect_key) DO UPDATE SET confirmed_at = now()`,
      [clientId, redirectKey],
    );
  }

  async redirectConfirmed(clientId: string, redirectKey: string): Promise<boolean> {
    const { rows } = await this.db.query(
      `SELECT 1 FROM ${this.t('mcp_oauth_redirect')} WHERE client_id = $1 AND redirect_key = $2`,
      [clientId, redirectKey],
    );
    return rows.length > 0;
  }

  async saveRequest(idHash: string, row: OAuthRequestRow): Promise<void> {
    await this.db.query(
      `INSERT INTO ${this.t('mcp_oauth_request')} (id_hash, client_id, redirect_uri,
        scope, code_challenge, state, resource, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [
        idHash,
        row.clientId,
        row.redirectUri,
        row.scope,
        row.codeChallenge,
        row.state,
        row.resource,
        row.expiresAt.toISOString(),
      ],
    );
  }

  /** The consent request, while it has not expired nor been answered. */
  async request(idHash: string): Promise<OAuthRequestRow | undefined> {
    const { rows } = await this.db.query<RequestRecord>(
      `SELECT * FROM ${this.t('mcp_oauth_request')} WHERE id_hash = $1 AND expires_at > now()`,
      [idHash],
    );
    return rows[0] && requestRow(rows[0]);
  }

  /** Takes the consent request for an answer; only one answer wins. */
  async takeRequest(idHash: string): Promise<OAuthRequestRow | undefined> {
    const { rows } = await this.db.query<RequestRecord>(
      `DELETE FROM ${this.t('mcp_oauth_request')} WHERE id_hash = $1 AND expires_at > now() RETURNING *`,
      [idHash],
    );
    return rows[0] && requestRow(rows[0]);
  }

  async saveCode(codeHash: string, row: OAuthCodeRow): Promise<void> {
    await this.db.query(
      `INSERT INTO ${this.t('mcp_oauth_code')} (code_hash, grant_id, client_id, redirect_uri,
        scope, code_challenge, resource, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [
        codeHash,
        row.grantId,
        row.clientId,
        row.redirectUri,
        row.scope,
        row.codeChallenge,
        row.resource,
        row.expiresAt.toISOString(),
      ],
    );
  }

  /** A code of this client, used or not, expired or not (a replay of a used code must be recognised). */
  async code(codeHash: string, clientId: string): Promise<(OAuthCodeRow & { used: boolean }) | undefined> {
    const { rows } = await this.db.query<CodeRecord & { used_at: Date | null }>(
      `SELECT * FROM ${this.t('mcp_oauth_code')} WHERE code_hash = $1 AND client_id = $2`,
      [codeHash, clientId],
    );
    return rows[0] && { ...codeRow(rows[0]), used: rows[0].used_at !== null };
  }

  async takeCode(codeHash: string, clientId: string): Promise<Consumed<OAuthCodeRow>> {
    const { rows } = await this.db.query<CodeRecord>(
      `UPDATE ${this.t('mcp_oauth_code')} SET used_at = now()
       WHERE code_hash = $1 AND client_id = $2 AND used_at IS NULL AND expires_at > now() RETURNING *`,
      [codeHash, clientId],
    );
    if (rows[0]) return { kind: 'ok', row: codeRow(rows[0]) };
    const { rows: used } = await this.db.query<{ grant_id: string }>(
      `SELECT grant_id FROM ${this.t('mcp_oauth_code')}
       WHERE code_hash = $1 AND client_id = $2 AND used_at IS NOT NULL`,
      [codeHash, clientId],
    );
    return used[0] ? { kind: 'reused', grantId: used[0].grant_id } : { kind: 'unknown' };
  }

  async saveTokens(tokens: (OAuthTokenRow & { tokenHash: string })[]): Promise<void> {
    for (const t of tokens) {
      await this.db.query(
        `INSERT INTO ${this.t('mcp_oauth_token')} (token_hash, kind, grant_id, client_id, scope, resource, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [t.tokenHash, t.kind, t.grantId, t.clientId, t.scope, t.resource, t.expiresAt.toISOString()],
      );
    }
  }

  /** A live token: of this kind, unexpired, unrevoked (and, for a refresh token, unused). */
  async token(tokenHash: string, kind: TokenKind): Promise<OAuthTokenRow | undefined> {
    const { rows } = await this.db.query<TokenRecord>(
      `SELECT * FROM ${this.t('mcp_oauth_token')}
       WHERE token_hash = $1 AND kind = $2 AND revoked_at IS NULL AND used_at IS NULL AND expires_at > now()`,
      [tokenHash, kind],
    );
    return rows[0] && tokenRow(rows[0]);
  }

  /**
   * A refresh token of this client, read without using it: `ok` while it is live, `reused` once it was
   * used or revoked (a replay), `unknown` when it is not this client's or has expired.
   */
  async refreshToken(tokenHash: string, clientId: string): Promise<Consumed<OAuthTokenRow>> {
    const { rows } = await this.db.query<
      TokenRecord & { used_at: Date | null; revoked_at: Date | null; live: boolean }
    >(
      `SELECT *, expires_at > now() AS live FROM ${this.t('mcp_oauth_token')}
       WHERE token_hash = $1 AND kind = 'refresh' AND client_id = $2`,
      [tokenHash, clientId],
    );
    const row = rows[0];
    if (!row) return { kind: 'unknown' };
    if (row.used_at !== null || row.revoked_at !== null) return { kind: 'reused', grantId: row.grant_id };
    return row.live ? { kind: 'ok', row: tokenRow(row) } : { kind: 'unknown' };
  }

  /** Takes a refresh token of this client for its one use. */
  async takeRefreshToken(tokenHash: string, clientId: string): Promise<Consumed<OAuthTokenRow>> {
    const { rows } = await this.db.query<TokenRecord>(
      `UPDATE ${this.t('mcp_oauth_token')} SET used_at = now()
       WHERE token_hash = $1 AND kind = 'refresh' AND client_id = $2
         AND used_at IS NULL AND revoked_at IS NULL AND expires_at > now()
       RETURNING *`,
      [tokenHash, clientId],
    );
    if (rows[0]) return { kind: 'ok', row: tokenRow(rows[0]) };
    const { rows: spent } = await this.db.query<{ grant_id: string }>(
      `SELECT grant_id FROM ${this.t('mcp_oauth_token')}
       WHERE token_hash = $1 AND kind = 'refresh' AND client_id = $2
         AND (used_at IS NOT NULL OR revoked_at IS NOT NULL)`,
      [tokenHash, clientId],
    );
    return spent[0] ? { kind: 'reused', grantId: spent[0].grant_id } : { kind: 'unknown' };
  }

  /** Revokes one token of this client; a refresh token takes its whole grant with it (RFC 7009 2.1). */
  async revokeToken(tokenHash: string, clientId: string): Promise<void> {
    const { rows } = await this.db.query<{ kind: TokenKind; grant_id: string }>(
      `UPDATE ${this.t('mcp_oauth_token')} SET revoked_at = coalesce(revoked_at, now())
       WHERE token_hash = $1 AND client_id = $2
       RETURNING kind, grant_id`,
      [tokenHash, clientId],
    );
    if (rows[0]?.kind === 'refresh') await this.revokeGrant(rows[0].grant_id);
  }

  async revokeGrant(grantId: string): Promise<number> {
    const { rows } = await this.db.query<{ n: number }>(
      `WITH r AS (UPDATE ${this.t('mcp_oauth_token')} SET revoked_at = now()
       WHERE grant_id = $1 AND revoked_at IS NULL RETURNING 1)
       SELECT count(*)::int AS n FROM r`,
      [grantId],
    );
    return rows[0]?.n ?? 0;
  }

  /**
   * Drops what can no longer be used: expired requests, codes and tokens (a day after expiry, so a
   * replay is still recognised), and registered clients left unused (never signed in with for a day,
   * or idle for a month) that hold no live token, with the redirect confirmations nobody uses any more.
   */
  async prune(): Promise<number> {
    const liveToken = (alias: string) =>
      `EXISTS (SELECT 1 FROM ${this.t('mcp_oauth_token')} k
       WHERE k.client_id = ${alias}.client_id AND k.expires_at > now())`;
    const { rows: clients } = await this.db.query<{ n: number }>(
      `WITH d AS (
         DELETE FROM ${this.t('mcp_oauth_client')} c
         WHERE ((c.last_used_at IS NULL AND c.created_at < now() - interval '${NEVER_USED_CLIENT}')
                OR c.last_used_at < now() - interval '${UNUSED_CLIENT}')
           AND NOT ${liveToken('c')}
         RETURNING client_id
       ), r AS (DELETE FROM ${this.t('mcp_oauth_redirect')} WHERE client_id IN (SELECT client_id FROM d))
       SELECT count(*)::int AS n FROM d`,
    );
    await this.db.query(
      `DELETE FROM ${this.t('mcp_oauth_redirect')} r
       WHERE r.confirmed_at < now() - interval '${UNUSED_CLIENT}' AND NOT ${liveToken('r')}`,
    );
    let n = clients[0]?.n ?? 0;
    for (const [table, grace] of [
      ['mcp_oauth_request', '0'],
      ['mcp_oauth_code', '1 day'],
      ['mcp_oauth_token', '1 day'],
    ] as const) {
      const { rows } = await this.db.query<{ n: number }>(
        `WITH d AS (DELETE FROM ${this.t(table)} WHERE expires_at < now() - $1::interval RETURNING 1)
         SELECT count(*)::int AS n FROM d`,
        [grace === '0' ? '0 seconds' : grace],
      );
      n += rows[0]?.n ?? 0;
    }
    return n;
  }
}

interface RequestRecord {
  client_id: string;
  redirect_uri: string;
  scope: string;
  code_challenge: string;
  state: string | null;
  resource: string;
  expires_at: Date | string;
}
interface CodeRecord extends Omit<RequestRecord, 'state'> {
  grant_id: string;
}
interface TokenRecord {
  kind: TokenKind;
  grant_id: string;
  client_id: string;
  scope: string;
  resource: string;
  expires_at: Date | string;
}

function requestRow(r: RequestRecord): OAuthRequestRow {
  return {
    clientId: r.client_id,
    redirectUri: r.redirect_uri,
    scope: r.scope,
    codeChallenge: r.code_challenge,
    state: r.state,
    resource: r.resource,
    expiresAt: new Date(r.expires_at),
  };
}
function codeRow(r: CodeRecord): OAuthCodeRow {
  return {
    grantId: r.grant_id,
    clientId: r.client_id,
    redirectUri: r.redirect_uri,
    scope: r.scope,
    codeChallenge: r.code_challenge,
    resource: r.resource,
    expiresAt: new Date(r.expires_at),
  };
}
function tokenRow(r: TokenRecord): OAuthTokenRow {
  return {
    kind: r.kind,
    grantId: r.grant_id,
    clientId: r.client_id,
    scope: r.scope,
    resource: r.resource,
    expiresAt: new Date(r.expires_at),
  };
}
