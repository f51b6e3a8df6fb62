/**
 * The MCP authorization server from outside, with the SDK's own client against the whole stack:
 * discovery (401 challenge, RFC 9728 and RFC 8414 metadata), dynamic registration, PKCE, consent,
 * token, rotating refresh tokens with replay detection, revocation, and each refusal: no PKCE, a
 * wrong code verifier, a wrong admin token (throttled), Deny, a bad or foreign bearer token; the
 * redirect URI allow-list and registration caps; error pages instead of redirects where the redirect
 * URI is not trusted (RFC 9700 4.11.2), and `iss` on every answer that is redirected (RFC 9207).
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  auth,
  discoverAuthorizationServerMetadata,
  exchangeAuthorization,
  refreshAuthorization,
} from '@modelcontextprotocol/sdk/client/auth.js';
import { describe, expect, it } from 'vitest';
import { serverUnavailable } from '../support/db.js';
import { useStack } from '../e2e/use-stack.js';
import { answerConsent, CALLBACK, connect, MemoryOAuthClient, postConsent, signIn } from './oauth-helpers.js';
import { TOOL_SCOPES } from '../../src/mcp/scopes.js';

const skip = await serverUnavailable();

describe.skipIf(skip)('MCP OAuth', () => {
  const stack = useStack({ sandboxes: { people: 300, companies: 60 } });
  const url = () => stack.running.url;

  it(
    'answers /mcp without a token with 401 and a challenge naming the resource metadata ' +
      'and the scope of every tool',
    async () => {
      const res = await fetch(`${url()}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(res.status).toBe(401);
      const challenge = res.headers.get('www-authenticate') ?? '';
      expect(challenge).toMatch(/^Bearer /);
      expect(challenge).toContain(`resource_metadata="${url()}/.well-known/oauth-protected-resource/mcp"`);
      expect(challenge).toContain('scope="read write"');
      expect(challenge).not.toContain('error=');

      const prm = (await (await fetch(`${url()}/.well-known/oauth-protected-resource/mcp`)).json()) as Record<
        string,
        unknown
      >;
      expect(prm).toMatchObject({
        resource: `${url()}/mcp`,
        authorization_servers: [url()],
        scopes_supported: ['read', 'write'],
      });
      const metadata = await discoverAuthorizationServerMetadata(url());
      expect(metadata).toMatchObject({
        issuer: url(),
        authorization_endpoint: `${url()}/authorize`,
        token_endpoint: `${url()}/token`,
        registration_endpoint: `${url()}/register`,
        revocation_endpoint: `${url()}/revoke`,
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['none'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        authorization_response_iss_parameter_supported: true,
        client_id_metadata_document_supported: true,
      });
    },
  );

  it(
    'registers, asks for consent, issues short-lived tokens bound to /mcp, ' +
      'and the SDK client calls a tool with them',
    async () => {
      const client = await signIn(url());
      const info = client.clientInformation()!;
      expect(info.client_id).toMatch(/^[0-9a-f-]{36}$/);
      expect('client_secret' in info && info.client_secret).toBeFalsy();
      const stored = await stack.running.service.parts.store.mcpAuth.client(info.client_id);
      expect(stored).toMatchObject({ client_name: 'Test assistant', token_endpoint_auth_method: 'none' });
      expect(await lastUsed(info.client_id)).not.toBeNull();

      const authUrl = client.authorizationUrl!;
      expect(authUrl.searchParams.get('code_challenge_method')).toBe('S256');
      expect(authUrl.searchParams.get('resource')).toBe(`${url()}/mcp`);
      expect(authUrl.searchParams.get('scope')).toBe('read write');

      const tokens = client.tokens()!;
      expect(tokens.expires_in).toBeLessThanOrEqual(3600);
      expect(tokens.refresh_token).toBeTruthy();
      expect(tokens.scope).toBe('read write');
      // Only hashes are stored: the token itself is nowhere in the table.
      const { rows } = await stack.running.service.parts.store.db.query<{ token_hash: string; resource: string }>(
        `SELECT token_hash, resource FROM "${stack.running.schema}".mcp_oauth_token`,
      );
      expect(rows.some((r) => r.token_hash === tokens.access_token)).toBe(false);
      expect(rows.some((r) => r.token_hash === createHash('sha256').update(tokens.access_token).digest('hex'))).toBe(
        true,
      );
      expect(new Set(rows.map((r) => r.resource))).toEqual(new Set([`${url()}/mcp`]));

      const mcp = await connect(url(), client);
      const { tools } = await mcp.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual([
        'data_health',
        'enrich_record',
        'explain_record',
        'filter_options',
        'list_job_changes',
        'lookup_company',
        'lookup_person',
        'preview_discovery',
        'run_discovery',
        'search_people',
      ]);
      await mcp.close();
    },
  );

  it('rotates the refresh token on every use and revokes the grant when a used one comes back', async () => {
    const client = await signIn(url());
    const first = client.tokens()!;
    expect(await auth(client, { serverUrl: `${url()}/mcp` })).toBe('AUTHORIZED');
    const second = client.tokens()!;
    expect(second.refresh_token).toBeTruthy();
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(second.access_token).not.toBe(first.access_token);

    // The new access token works; then the old refresh token is replayed.
    const ok = await fetch(`${url()}/mcp`, {
      method: 'POST',
      headers: mcpHeaders(second.access_token),
      body: listToolsBody,
    });
    expect(ok.status).toBe(200);
    const metadata = await discoverAuthorizationServerMetadata(url());
    await expect(
      refreshAuthorization(url(), {
        metadata,
        clientInformation: client.clientInformation()!,
        refreshToken: first.refresh_token!,
        resource: `${url()}/mcp`,
      }),
    ).rejects.toThrow(/refresh token/);
    const after = await fetch(`${url()}/mcp`, {
      method: 'POST',
      headers: mcpHeaders(second.access_token),
      body: listToolsBody,
    });
    expect(after.status).toBe(401);
    expect(after.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('revokes a refresh token with the whole grant', async () => {
    const client = await signIn(url());
    const tokens = client.tokens()!;
    const res = await fetch(`${url()}/revoke`, {
      method: 'POST',
      body: new URLSearchParams({ token: tokens.refresh_token!, client_id: client.clientInformation()!.client_id }),
    });
    expect(res.status).toBe(200);
    const call = await fetch(`${url()}/mcp`, {
      method: 'POST',
      headers: mcpHeaders(tokens.access_token),
      body: listToolsBody,
    });
    expect(call.status).toBe(401);
  });

  const badRequests: [string, (u: URL) => void, string][] = [
    ['no PKCE challenge', (u) => u.searchParams.delete('code_challenge'), 'invalid_request'],
    ['the plain method', (u) => u.searchParams.set('code_challenge_method', 'plain'), 'invalid_request'],
    ['an unknown scope', (u) => u.searchParams.set('scope', 'read admin'), 'invalid_scope'],
    ['another resource', (u) => u.searchParams.set('resource', 'https://other.example/mcp'), 'invalid_target'],
  ];

  // It never redirects there.
  it('shows on a page the errors of a client whose redirect URI no admin has confirmed', async () => {
    const client = new MemoryOAuthClient({ redirectUrl: 'https://evil.example/landing', name: 'Phisher' });
    await auth(client, { serverUrl: `${url()}/mcp` });
    for (const [, change, code] of badRequests) {
      const bad = new URL(client.authorizationUrl!);
      change(bad);
      const res = await fetch(bad, { redirect: 'manual' });
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      const page = await res.text();
      expect(page).toContain(code);
      expect(page).toContain('no admin has allowed a sign-in to that address');
    }
  });

  it('redirects the errors of a client whose redirect URI the admin confirmed, with iss and state', async () => {
    const client = await signIn(url());
    client.saveTokens(undefined as never);
    expect(await auth(client, { serverUrl: `${url()}/mcp` })).toBe('REDIRECT');
    for (const [, change, code] of badRequests) {
      const bad = new URL(client.authorizationUrl!);
      change(bad);
      const res = await fetch(bad, { redirect: 'manual' });
      expect(res.status).toBe(302);
      const back = new URL(res.headers.get('location')!);
      expect(`${back.origin}${back.pathname}`).toBe(CALLBACK);
      expect(back.searchParams.get('error')).toBe(code);
      expect(back.searchParams.get('iss')).toBe(url());
      expect(back.searchParams.get('state')).toBe(client.expectedState);
      expect(back.searchParams.get('code')).toBeNull();
    }
  });

  it('answers an unknown client or an unregistered redirect URI with an error page, never a redirect', async () => {
    const client = new MemoryOAuthClient();
    await auth(client, { serverUrl: `${url()}/mcp` });
    const unknown = new URL(client.authorizationUrl!);
    unknown.searchParams.set('client_id', '00000000-0000-4000-8000-000000000000');
    const foreign = new URL(client.authorizationUrl!);
    foreign.searchParams.set('redirect_uri', 'https://evil.example/landing');
    for (const [request, text] of [
      [unknown, 'no client has this id'],
      [foreign, 'not one this client registered'],
    ] as const) {
      const res = await fetch(request, { redirect: 'manual' });
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await res.text()).toContain(text);
    }
  });

  it('refuses a code with the wrong verifier, and a code used twice', async () => {
    const client = new MemoryOAuthClient();
    await auth(client, { serverUrl: `${url()}/mcp` });
    const answer = await answerConsent(client.authorizationUrl!, 'allow');
    const code = answer.location!.searchParams.get('code')!;
    expect(answer.location!.searchParams.get('state')).toBe(client.expectedState);
    expect(answer.location!.searchParams.get('iss')).toBe(url());
    const metadata = await discoverAuthorizationServerMetadata(url());
    const exchange = (codeVerifier: string) =>
      exchangeAuthorization(url(), {
        metadata,
        clientInformation: client.clientInformation()!,
        authorizationCode: code,
        codeVerifier,
        redirectUri: CALLBACK,
        resource: new URL(`${url()}/mcp`),
      });
    await expect(exchange(randomBytes(32).toString('base64url'))).rejects.toThrow(/code_verifier/);
    const tokens = await exchange(client.codeVerifier());
    expect(tokens.access_token).toBeTruthy();
    await expect(exchange(client.codeVerifier())).rejects.toThrow(/authorization code/);
    // The replay took back what the code gave.
    const call = await fetch(`${url()}/mcp`, {
      method: 'POST',
      headers: mcpHeaders(tokens.access_token),
      body: listToolsBody,
    });
    expect(call.status).toBe(401);
  });

  it('issues nothing for a wrong admin token, and Deny sends the client back with access_denied', async () => {
    const client = new MemoryOAuthClient();
    await auth(client, { serverUrl: `${url()}/mcp` });
    const codesBefore = await codeRows();
    const wrong = await answerConsent(client.authorizationUrl!, 'allow', 'not-the-admin-token');
    expect(wrong.status).toBe(401);
    expect(wrong.location).toBeUndefined();
    expect(wrong.html).toContain('That is not the admin token');
    expect(await codeRows()).toBe(codesBefore);

    // Deny needs no token, so it goes back only to a redirect URI an admin confirmed before.
    const denied = await answerConsent(client.authorizationUrl!, 'deny', undefined);
    expect(denied.status).toBe(200);
    expect(denied.location).toBeUndefined();
    expect(denied.html).toContain('Denied: nothing was allowed');
    // Asking for consent is not use: only a token keeps a registration from expiring.
    expect(await lastUsed(client.clientInformation()!.client_id)).toBeNull();

    const confirmed = await signIn(url());
    confirmed.saveTokens(undefined as never);
    expect(await auth(confirmed, { serverUrl: `${url()}/mcp` })).toBe('REDIRECT');
    const back = await answerConsent(confirmed.authorizationUrl!, 'deny', undefined);
    expect(back.status).toBe(302);
    expect(back.location!.searchParams.get('error')).toBe('access_denied');
    expect(back.location!.searchParams.get('state')).toBe(confirmed.expectedState);
    expect(back.location!.searchParams.get('iss')).toBe(url());
    expect(back.location!.searchParams.get('code')).toBeNull();
  });

  it('accepts the pre-registered client on any loopback port, and refuses redirects it was not given', async () => {
    const pre = new MemoryOAuthClient({
      redirectUrl: 'http://127.0.0.1:49152/callback',
      preRegistered: { client_id: 'crm-enrich-mcp' },
    });
    await signIn(url(), { client: pre });
    const mcp = await connect(url(), pre);
    expect((await mcp.listTools()).tools.length).toBe(Object.keys(TOOL_SCOPES).length);
    await mcp.close();

    const foreign = new URL(pre.authorizationUrl!);
    foreign.searchParams.set('redirect_uri', 'https://attacker.example/callback');
    const res = await fetch(foreign, { redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('redirect_uri: not one this client registered');
  });

  it('refuses every redirect URI off the allow-list with invalid_redirect_uri, and stores none', async () => {
    const before = await clientRows();
    for (const uri of [
      'ms-msdt:/id PCWDiagnostic',
      'search-ms:query=x',
      'chrome://settings',
      'view-source:https://a.example/',
      'x-javascript:alert(1)',
      'https://evil.example/cb#',
      'http://attacker.example/cb',
    ]) {
      const res = await register({ client_name: 'bad', redirect_uris: [uri], token_endpoint_auth_method: 'none' });
      expect(res.status).toBe(400);
      const body = (await res.json()) as { error: string; error_description: string };
      expect(body.error).toBe('invalid_redirect_uri');
      expect(body.error_description).toContain('redirect_uris');
    }
    const many = Array.from({ length: 11 }, (_, i) => `https://app.example.com/cb${i}`);
    expect(((await (await register({ redirect_uris: many })).json()) as { error: string }).error).toBe(
      'invalid_redirect_uri',
    );
    expect(await clientRows()).toBe(before);
    const ok = await register({
      client_name: 'Native',
      redirect_uris: ['https://evil.example/landing', 'com.example.app:/cb'],
    });
    expect(ok.status).toBe(201);
  });

  it('refuses a 95 KB registration and an overlong name with a clear error, storing and echoing nothing', async () => {
    const before = await clientRows();
    const huge = await register({ client_name: 'x', redirect_uris: [CALLBACK], junk: 'j'.repeat(95 * 1024) });
    expect(huge.status).toBe(413);
    const hugeBody = await huge.text();
    expect(hugeBody.length).toBeLessThan(500);
    expect(JSON.parse(hugeBody)).toMatchObject({
      error: 'invalid_client_metadata',
      error_description: expect.stringContaining('16 KB'),
    });
    const named = await register({ client_name: 'n'.repeat(101), redirect_uris: [CALLBACK] });
    expect(named.status).toBe(400);
    expect(await named.json()).toMatchObject({
      error: 'invalid_client_metadata',
      error_description: 'client_name: at most 100 characters',
    });
    expect(await clientRows()).toBe(before);
  });

  it('refuses to register a plain-http redirect off loopback, naming it', async () => {
    const res = await register({
      client_name: 'bad',
      redirect_uris: ['http://attacker.example/cb'],
      token_endpoint_auth_method: 'none',
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: string; error_description: string };
    expect(body.error).toBe('invalid_redirect_uri');
    expect(body.error_description).toContain('http://attacker.example/cb');
  });

  it('binds everything to <PUBLIC_URL>/mcp: a token bound elsewhere is refused at /mcp', async () => {
    const token = `cea_${randomBytes(32).toString('base64url')}`;
    await stack.running.service.parts.store.mcpAuth.saveTokens([
      {
        tokenHash: createHash('sha256').update(token).digest('hex'),
        kind: 'access',
        grantId: 'g-elsewhere',
        clientId: 'crm-enrich-mcp',
        scope: 'read',
        resource: 'https://other.example/mcp',
        expiresAt: new Date(Date.now() + 60_000),
      },
    ]);
    const call = await fetch(`${url()}/mcp`, { method: 'POST', headers: mcpHeaders(token), body: listToolsBody });
    expect(call.status).toBe(401);
    expect(call.headers.get('www-authenticate')).toContain('another resource');
  });

  it('answers a bad or unknown bearer token with 401 invalid_token', async () => {
    const res = await fetch(`${url()}/mcp`, {
      method: 'POST',
      headers: mcpHeaders(`cea_${randomBytes(32).toString('base64url')}`),
      body: listToolsBody,
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(res.headers.get('www-authenticate')).toContain('resource_metadata=');
  });

  it('throttles wrong admin tokens on the consent page like the admin API, for both', async () => {
    const client = new MemoryOAuthClient();
    await auth(client, { serverUrl: `${url()}/mcp` });
    const page = await (await fetch(client.authorizationUrl!)).text();
    const request = /name="request" value="([^"]+)"/.exec(page)![1]!;
    let last = 0;
    for (let i = 0; i < 11; i++)
      last = (await postConsent(url(), { request, decision: 'allow', admin_token: `wrong-${i}` })).status;
    expect(last).toBe(429);
    // The right token waits too, and the admin API shares the count.
    expect((await postConsent(url(), { request, decision: 'allow', admin_token: 'e2e-admin-token' })).status).toBe(429);
    expect((await stack.running.admin('GET', '/stats')).status).toBe(429);
  });

  function register(body: Record<string, unknown>): Promise<Response> {
    return fetch(`${url()}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  }

  async function lastUsed(clientId: string): Promise<Date | null> {
    const { rows } = await stack.running.service.parts.store.db.query<{ last_used_at: Date | null }>(
      `SELECT last_used_at FROM "${stack.running.schema}".mcp_oauth_client WHERE client_id = $1`,
      [clientId],
    );
    return rows[0]!.last_used_at;
  }

  async function clientRows(): Promise<number> {
    const { rows } = await stack.running.service.parts.store.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM "${stack.running.schema}".mcp_oauth_client`,
    );
    return rows[0]!.n;
  }

  async function codeRows(): Promise<number> {
    const { rows } = await stack.running.service.parts.store.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM "${stack.running.schema}".mcp_oauth_code`,
    );
    return rows[0]!.n;
  }
});

const listToolsBody = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
function mcpHeaders(token: string): Record<string, string> {
  return {
    authorization: `Bearer ${token}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2025-11-25',
  };
}
