/**
 * The authorization server behind the SDK's OAuth handlers, backed by Postgres so every instance
 * shares it. The SDK's handlers parse and check the requests (client, redirect URI with any loopback
 * port, PKCE S256 present and verified); this provider decides and remembers: the consent request, the
 * one-use code bound to its client, redirect URI and resource, and short-lived access tokens with
 * refresh tokens that rotate on every use (a replayed one revokes the grant).
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Response } from 'express';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import {
  InvalidGrantError,
  InvalidScopeError,
  InvalidTargetError,
  InvalidTokenError,
} from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type {
  OAuthClientInformationFull,
  OAuthTokenRevocationRequest,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { redirectUriKey } from '../core/oauth-urls.js';
import { logger } from '../logger.js';
import type { Consumed, McpOAuthStore, OAuthTokenRow } from '../store/mcp-oauth.js';
import type { McpClients } from './clients-store.js';
import { renderConsent } from './consent-page.js';
import { isScope } from './scopes.js';
import { sameResource, type McpUrls } from './urls.js';

const log = logger('mcp.oauth');

/** Long enough for an admin to read the consent page and find the token. */
const CONSENT_TTL_MS = 10 * 60_000;
/** A code goes straight from the browser to the client's token request. */
const CODE_TTL_MS = 60_000;

export const hashSecret = (value: string) => createHash('sha256').update(value).digest('hex');
const CODE_REFUSED = "the authorization code is unknown, used, expired or not this client's";
const newSecret = (prefix: string) => `${prefix}_${randomBytes(32).toString('base64url')}`;

export interface TokenLifetimes {
  accessSeconds: number;
  refreshDays: number;
}

export class McpOAuthProvider implements OAuthServerProvider {
  constructor(
    private readonly store: McpOAuthStore,
    readonly clientsStore: McpClients,
    private readonly urls: McpUrls,
    private readonly lifetimes: TokenLifetimes,
  ) {}

  get issuer(): string {
    return this.urls.issuer;
  }

  /**
   * Whether errors and denials may go back to this redirect URI by an automatic redirect (RFC 9700
   * 4.11.2): the operator configured it for the pre-registered client, or the admin allowed a sign-in
   * to it before. Anything else was only claimed by whoever registered the client or wrote its document.
   */
  async redirectTrusted(clientId: string, redirectUri: string): Promise<boolean> {
    return (
      this.clientsStore.isPreRegistered(clientId) || this.store.redirectConfirmed(clientId, redirectUriKey(redirectUri))
    );
  }

  /** Stores the request and shows the consent page; the admin's answer goes to the consent route. */
  async authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res: Response): Promise<void> {
    const scope = this.grantableScope(client, params.scopes);
    if (params.resource && !sameResource(params.resource.href, this.urls.resource)) {
      throw new InvalidTargetError(`resource: this server is ${this.urls.resource}`);
    }
    const requestId = randomBytes(32).toString('base64url');
    await this.store.saveRequest(hashSecret(requestId), {
      clientId: client.client_id,
      redirectUri: params.redirectUri,
      scope,
      codeChallenge: params.codeChallenge,
      state: params.state ?? null,
      resource: this.urls.resource,
      expiresAt: new Date(Date.now() + CONSENT_TTL_MS),
    });
    const firstTime = !(await this.redirectTrusted(client.client_id, params.redirectUri));
    renderConsent(res, { client, scopes: scope.split(' '), requestId, redirectUri: params.redirectUri, firstTime });
  }

  /**
   * Issues the code once the admin has allowed the request (called by the consent route); the admin
   * has now vouched for its redirect URI.
   */
  async issueCode(request: {
    clientId: string;
    redirectUri: string;
    scope: string;
    codeChallenge: string;
    resource: string;
  }): Promise<string> {
    await this.store.confirmRedirect(request.clientId, redirectUriKey(request.redirectUri));
    const code = newSecret('cec');
    await this.store.saveCode(hashSecret(code), {
      ...request,
      grantId: randomUUID(),
      expiresAt: new Date(Date.now() + CODE_TTL_MS),
    });
    return code;
  }

  async challengeForAuthorizationCode(client: OAuthClientInformationFull, authorizationCode: string): Promise<string> {
    const code = await this.store.code(hashSecret(authorizationCode), client.client_id);
    if (code?.used)
      await this.replayed('an authorization code was used twice; the tokens it gave are revoked', client, code.grantId);
    if (!code || code.used || code.expiresAt.getTime() <= Date.now()) throw new InvalidGrantError(CODE_REFUSED);
    return code.codeChallenge;
  }

  async exchangeAuthorizationCode(
    client: OAuthClientInformationFull,
    authorizationCode: string,
    _verifier?: string,
    redirectUri?: string,
    resource?: URL,
  ): Promise<OAuthTokens> {
    const codeHash = hashSecret(authorizationCode);
    // Checked before the code is used (the SDK has checked PKCE against it already): a refused exchange
    // leaves the code for the client's right one.
    const code = await this.store.code(codeHash, client.client_id);
    if (code?.used)
      await this.replayed('an authorization code was used twice; the tokens it gave are revoked', client, code.grantId);
    if (!code || code.used || code.expiresAt.getTime() <= Date.now()) throw new InvalidGrantError(CODE_REFUSED);
    if (redirectUri !== code.redirectUri)
      throw new InvalidGrantError('redirect_uri: it must be the one the authorization request used');
    if (resource && !sameResource(resource.href, code.resource))
      throw new InvalidTargetError(`resource: the code was issued for ${code.resource}`);
    const taken = await this.store.takeCode(codeHash, client.client_id);
    if (taken.kind === 'reused')
      await this.replayed(
        'an authorization code was used twice; the tokens it gave are revoked',
        client,
        taken.grantId,
      );
    if (taken.kind !== 'ok') throw new InvalidGrantError(CODE_REFUSED);
    return this.issueTokens(client.client_id, taken.row.grantId, taken.row.scope, taken.row.resource);
  }

  async exchangeRefreshToken(
    client: OAuthClientInformationFull,
    refreshToken: string,
    scopes?: string[],
    resource?: URL,
  ): Promise<OAuthTokens> {
    const tokenHash = hashSecret(refreshToken);
    // Checked before the token is used: a refused refresh (a wider scope, another resource) leaves the
    // token live, so the client's retry is not taken for a replay.
    const token = await this.liveRefreshToken(await this.store.refreshToken(tokenHash, client.client_id), client);
    if (resource && !sameResource(resource.href, token.resource))
      throw new InvalidTargetError(`resource: the token was issued for ${token.resource}`);
    const granted = token.scope.split(' ');
    const wider = (scopes ?? []).filter((s) => !granted.includes(s));
    if (wider.length)
      throw new InvalidScopeError(`scope: ${wider.join(', ')} was not granted; sign in again to ask for it`);
    const taken = await this.liveRefreshToken(await this.store.takeRefreshToken(tokenHash, client.client_id), client);
    return this.issueTokens(
      client.client_id,
      taken.grantId,
      scopes?.length ? scopes.join(' ') : taken.scope,
      taken.resource,
    );
  }

  /** The token of a live refresh token; a used or revoked one is a replay, and revokes its grant. */
  private async liveRefreshToken(
    found: Consumed<OAuthTokenRow>,
    client: OAuthClientInformationFull,
  ): Promise<OAuthTokenRow> {
    if (found.kind === 'reused')
      await this.replayed(
        'a used or revoked refresh token was presented again; its grant is revoked',
        client,
        found.grantId,
      );
    if (found.kind !== 'ok')
      throw new InvalidGrantError(
        "the refresh token is unknown, used, revoked, expired or not this client's; sign in again",
      );
    return found.row;
  }

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const row = await this.store.token(hashSecret(token), 'access');
    if (!row) throw new InvalidTokenError('the access token is unknown, expired or revoked');
    // The name is for the audit log only: a metadata document that cannot be fetched now must not fail the call.
    const client = await this.clientsStore.getClient(row.clientId).catch(() => undefined);
    return {
      token,
      clientId: row.clientId,
      scopes: row.scope.split(' '),
      expiresAt: Math.floor(row.expiresAt.getTime() / 1000),
      resource: new URL(row.resource),
      extra: { clientName: client?.client_name ?? row.clientId },
    };
  }

  async revokeToken(client: OAuthClientInformationFull, request: OAuthTokenRevocationRequest): Promise<void> {
    await this.store.revokeToken(hashSecret(request.token), client.client_id);
  }

  /**
   * RFC 9700 4.2.1 and 4.14.2: a one-use secret used twice was stolen or replayed; what its grant gave is taken back.
   */
  private async replayed(message: string, client: OAuthClientInformationFull, grantId: string): Promise<void> {
    const revoked = await this.store.revokeGrant(grantId);
    log.warn({ clientId: client.client_id, revoked }, message);
  }

  private grantableScope(client: OAuthClientInformationFull, asked: string[] | undefined): string {
    const allowed = (client.scope ?? '').split(' ').filter(Boolean);
    const wanted = asked?.filter(Boolean).length ? asked.filter(Boolean) : allowed;
    const unknown = wanted.filter((s) => !isScope(s));
    if (unknown.length) throw new InvalidScopeError(`scope: unknown scope ${unknown.join(', ')}`);
    const notRegistered = wanted.filter((s) => !allowed.includes(s));
    if (notRegistered.length)
      throw new InvalidScopeError(`scope: ${notRegistered.join(', ')} is not among the scopes this client registered`);
    return [...new Set(wanted)].join(' ');
  }

  private async issueTokens(clientId: string, grantId: string, scope: string, resource: string): Promise<OAuthTokens> {
    // Only a token counts as use: one needs the admin's consent, so junk registrations cannot keep themselves alive.
    await this.store.touchClient(clientId);
    const accessToken = newSecret('cea');
    const refreshToken = newSecret('cer');
    const now = Date.now();
    await this.store.saveTokens([
      {
        tokenHash: hashSecret(accessToken),
        kind: 'access',
        grantId,
        clientId,
        scope,
        resource,
        expiresAt: new Date(now + this.lifetimes.accessSeconds * 1000),
      },
      {
        tokenHash: hashSecret(refreshToken),
        kind: 'refresh',
        grantId,
        clientId,
        scope,
        resource,
        expiresAt: new Date(now + this.lifetimes.refreshDays * 86_400_000),
      },
    ]);
    return {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: this.lifetimes.accessSeconds,
      refresh_token: refreshToken,
      scope,
    };
  }
}
