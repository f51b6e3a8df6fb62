/**
 * A refused token request uses up nothing: a refresh asking for a wider scope, another resource or made
 * by another client, and a code exchange with another resource, another redirect URI, a wrong PKCE
 * verifier or another client, are refused and leave the refresh token or code for the right request.
 * The access token the grant gave keeps working (the retry is not taken for a replay). Over real HTTP
 * with the SDK's own client, on Postgres.
 */
import { randomBytes } from 'node:crypto';
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { describe, expect, it } from 'vitest';
import { serverUnavailable } from '../support/db.js';
import { useStack } from '../e2e/use-stack.js';
import { answerConsent, CALLBACK, MemoryOAuthClient, signIn } from './oauth-helpers.js';

const skip = await serverUnavailable();

describe.skipIf(skip)('MCP OAuth refusals that consume nothing', () => {
  const stack = useStack();
  const url = () => stack.running.url;
  const resource = () => `${url()}/mcp`;

  async function token(form: Record<string, string>): Promise<{ status: number; body: Record<string, string> }> {
    const res = await fetch(`${url()}/token`, { method: 'POST', body: new URLSearchParams(form) });
    return { status: res.status, body: (await res.json()) as Record<string, string> };
  }

  async function listTools(accessToken: string): Promise<number> {
    const res = await fetch(resource(), {
      method: 'POST',
      headers: {
        authorization: `Bearer ${accessToken}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    await res.text();
    return res.status;
  }

  it('leaves the refresh token live after a refresh refused for its scope, resource or client', async () => {
    const client = await signIn(url(), { scope: 'read' });
    const { refresh_token: refreshToken, access_token: accessToken } = client.tokens()!;
    const clientId = client.clientInformation()!.client_id;
    const other = await signIn(url(), { client: new MemoryOAuthClient({ name: 'Other assistant' }) });
    const refresh = (extra: Record<string, string>) =>
      token({
        grant_type: 'refresh_token',
        refresh_token: refreshToken!,
        client_id: clientId,
        resource: resource(),
        ...extra,
      });

    const wider = await refresh({ scope: 'read write' });
    expect(wider).toMatchObject({ status: 400, body: { error: 'invalid_scope' } });
    const elsewhere = await refresh({ resource: 'https://other.example/mcp' });
    expect(elsewhere).toMatchObject({ status: 400, body: { error: 'invalid_target' } });
    const foreign = await refresh({ client_id: other.clientInformation()!.client_id });
    expect(foreign).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    // Nothing was used up, nothing revoked: the grant's access token works and the retry succeeds.
    expect(await listTools(accessToken)).toBe(200);
    const retried = await refresh({});
    expect(retried.status).toBe(200);
    expect(retried.body.scope).toBe('read');
    expect(await listTools(retried.body.access_token!)).toBe(200);
    // Used once, the token is spent: presented again it is a replay, and the grant goes.
    expect((await refresh({})).body.error).toBe('invalid_grant');
    expect(await listTools(retried.body.access_token!)).toBe(401);
    // The other client's grant is untouched by all of this.
    expect(await listTools(other.tokens()!.access_token)).toBe(200);
  });

  it('leaves the code for the right exchange after one refused for resource, redirect, verifier, client', async () => {
    const client = new MemoryOAuthClient();
    await auth(client, { serverUrl: resource() });
    const answer = await answerConsent(client.authorizationUrl!, 'allow');
    const code = answer.location!.searchParams.get('code')!;
    const other = new MemoryOAuthClient({ name: 'Other assistant' });
    await auth(other, { serverUrl: resource() });
    const exchange = (extra: Record<string, string>) =>
      token({
        grant_type: 'authorization_code',
        code,
        code_verifier: client.codeVerifier(),
        redirect_uri: CALLBACK,
        client_id: client.clientInformation()!.client_id,
        resource: resource(),
        ...extra,
      });

    expect(await exchange({ resource: 'https://other.example/mcp' })).toMatchObject({
      status: 400,
      body: { error: 'invalid_target' },
    });
    expect(await exchange({ redirect_uri: 'http://127.0.0.1:53612/elsewhere' })).toMatchObject({
      status: 400,
      body: { error: 'invalid_grant' },
    });
    expect(await exchange({ code_verifier: randomBytes(32).toString('base64url') })).toMatchObject({
      status: 400,
      body: { error: 'invalid_grant' },
    });
    expect(await exchange({ client_id: other.clientInformation()!.client_id })).toMatchObject({
      status: 400,
      body: { error: 'invalid_grant' },
    });
    const right = await exchange({});
    expect(right.status).toBe(200);
    expect(await listTools(right.body.access_token!)).toBe(200);
    // Once used, the code is spent, and a second use takes back what it gave.
    expect((await exchange({})).body.error).toBe('invalid_grant');
    expect(await listTools(right.body.access_token!)).toBe(401);
  });
});
