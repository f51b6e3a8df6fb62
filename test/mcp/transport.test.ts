/**
 * /mcp as the Streamable HTTP transport specification asks, against the whole stack: clients of both
 * protocol revisions (2026-07-28 on the SDK's v2 client, 2025-11-25 on its 1.x client) served by one
 * endpoint; `Origin` checked whole (own origin, the configured allow-list, nothing else); only bodies
 * parsed here reach the SDK (a padded content type or a stray byte never runs a tool); malformed JSON
 * answered -32700; batches refused from 2025-06-18 on; an unknown tool a JSON-RPC error (-32602); and
 * capabilities that promise no change notifications.
 */
import { request as httpRequest } from 'node:http';
import type { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverUnavailable } from '../support/db.js';
import { partnerPeople } from '../e2e/stack.js';
import { useStack } from '../e2e/use-stack.js';
import { connectModern, MODERN } from './modern-client.js';
import { connect, MemoryOAuthClient, signIn } from './oauth-helpers.js';

const skip = await serverUnavailable();

const ALLOWED = 'https://assistant.example.com';

/** A raw POST, byte for byte as given: what no SDK client would send. */
function rawPost(
  url: string,
  headers: Record<string, string>,
  body: Buffer,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers: { ...headers, 'content-length': body.length } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode!, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe.skipIf(skip)('MCP transport', () => {
  const stack = useStack({
    sandboxes: { people: 200, companies: 40 },
    service: { env: { MCP_ALLOWED_ORIGINS: `${ALLOWED},chrome-extension://abcdefghijklmnop` } },
  });
  let writer: MemoryOAuthClient;
  let reader: MemoryOAuthClient;
  let legacy: LegacyClient;
  let modern: Client;

  beforeAll(async () => {
    writer = await signIn(stack.running.url, { client: new MemoryOAuthClient({ name: 'Writer' }) });
    reader = await signIn(stack.running.url, { client: new MemoryOAuthClient({ name: 'Reader' }), scope: 'read' });
    legacy = await connect(stack.running.url, writer);
    modern = await connectModern(stack.running.url, writer.tokens()!.access_token);
  });
  afterAll(async () => {
    await legacy?.close();
    await modern?.close();
  });

  const post = (headers: Record<string, string>, body: unknown, token = writer.tokens()!.access_token) =>
    fetch(`${stack.running.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const enrichAudit = async () =>
    (
      await stack.running.service.parts.store.recordView(
        { connection: 'mcp', objectType: 'tool', recordId: 'enrich_record' },
        100,
      )
    ).audit.length;

  it('serves a 2026-07-28 client without a handshake and a 2025-11-25 client with one, from one endpoint', async () => {
    expect(modern.getProtocolEra()).toBe('modern');
    expect(legacy.getServerVersion()).toMatchObject({ name: 'crm-enrich' });
    const company = stack.sandboxes.partner.dataset.companyRecords[2]!;
    const args = { by: 'fqdn', value: company.domain, market: company.home };
    const fromModern = await modern.callTool({ name: 'lookup_company', arguments: args });
    expect(fromModern.structuredContent).toMatchObject({ found: true, fromCache: false });
    const fromLegacy = await legacy.callTool({ name: 'lookup_company', arguments: args });
    expect(fromLegacy.structuredContent).toMatchObject({ found: true, fromCache: true });
    const names = (await modern.listTools()).tools.map((t) => t.name).sort();
    expect(names).toEqual((await legacy.listTools()).tools.map((t) => t.name).sort());
    expect(names).toContain('enrich_record');
  });

  it('advertises no list-changed notifications or subscriptions, since it never sends them', async () => {
    for (const capabilities of [legacy.getServerCapabilities(), modern.getServerCapabilities()]) {
      expect(capabilities?.tools?.listChanged).not.toBe(true);
      expect(capabilities?.resources?.listChanged).not.toBe(true);
      expect(capabilities?.resources?.subscribe).not.toBe(true);
      expect(capabilities?.prompts?.listChanged).not.toBe(true);
      expect(capabilities?.logging).toBeUndefined();
    }
  });

  it('answers an unknown tool with JSON-RPC error -32602, in both eras', async () => {
    await expect(modern.callTool({ name: 'delete_everything', arguments: {} })).rejects.toMatchObject({
      code: -32602,
    });
    await expect(legacy.callTool({ name: 'delete_everything', arguments: {} })).rejects.toMatchObject({
      code: -32602,
    });
    const res = await post(
      { 'mcp-protocol-version': '2025-11-25' },
      { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'delete_everything', arguments: {} } },
    );
    const text = await res.text();
    expect(text).toContain('"code":-32602');
    expect(text).not.toContain('isError');
  });

  it('refuses an Origin that is neither its own nor allowed, and serves those that are', async () => {
    const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
    const own = new URL(stack.running.url);
    for (const origin of [
      'http://evil.example.com',
      'null',
      `http://127.0.0.1:${Number(own.port) + 1}`,
      `https://127.0.0.1:${own.port}`,
      'https://assistant.example.com.evil.example',
    ]) {
      const res = await post({ origin }, ping);
      expect(res.status, origin).toBe(403);
      expect(((await res.json()) as { error: { message: string } }).error.message).toContain('MCP_ALLOWED_ORIGINS');
    }
    for (const origin of [
      own.origin,
      `http://localhost:${own.port}`,
      ALLOWED,
      'HTTPS://Assistant.Example.com:443',
      'chrome-extension://abcdefghijklmnop',
    ]) {
      const res = await post({ origin }, ping);
      expect(res.status, origin).toBe(200);
    }
    // An allowed page can call from its own origin: the preflight is answered, and it may read the challenge.
    const preflight = await fetch(`${stack.running.url}/mcp`, {
      method: 'OPTIONS',
      headers: {
        origin: ALLOWED,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type, mcp-protocol-version, mcp-method, mcp-name',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(preflight.headers.get('access-control-allow-headers')).toContain('mcp-protocol-version');
    const answered = await post({ origin: ALLOWED }, ping);
    expect(answered.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(answered.headers.get('access-control-expose-headers')).toContain('WWW-Authenticate');
    const foreign = await fetch(`${stack.running.url}/mcp`, {
      method: 'OPTIONS',
      headers: { origin: 'http://evil.example.com', 'access-control-request-method': 'POST' },
    });
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
    // Checked before the token: a page cannot even learn whether its stolen token works.
    expect((await post({ origin: 'http://evil.example.com' }, ping, 'not-a-token')).status).toBe(403);
  });

  it('never hands the SDK a body it did not parse: a padded content type with a read token runs nothing', async () => {
    const [person] = partnerPeople(stack.sandboxes, 1, 30);
    stack.sandboxes.hubspot.setWebhookUrl(undefined);
    const { id } = stack.sandboxes.hubspot.createContact({ email: person!.workEmail!, jobtitle: 'Typed by a person' });
    stack.sandboxes.hubspot.setWebhookUrl(`${stack.running.url}/webhooks/hubspot`);
    const call = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'enrich_record', arguments: { crm: 'hubspot', object: 'contact', id } },
    });
    const headers = {
      authorization: `Bearer ${reader.tokens()!.access_token}`,
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
    };
    const before = await enrichAudit();

    const padded = await rawPost(
      `${stack.running.url}/mcp`,
      { ...headers, 'content-type': 'application/json\u00a0' },
      Buffer.from(call),
    );
    expect(padded.status).toBe(415);
    expect(JSON.parse(padded.text)).toMatchObject({ error: { message: expect.stringMatching(/^Unsupported Media/) } });

    const trailing = await rawPost(
      `${stack.running.url}/mcp`,
      { ...headers, 'content-type': 'application/json' },
      Buffer.concat([Buffer.from(call), Buffer.from([0xa0])]),
    );
    expect(trailing.status).toBe(400);
    expect(JSON.parse(trailing.text)).toMatchObject({ error: { code: -32700 } });

    const plain = await rawPost(
      `${stack.running.url}/mcp`,
      { ...headers, 'content-type': 'text/plain' },
      Buffer.from(call),
    );
    expect(plain.status).toBe(415);

    // The same call, parsed, meets the scope check.
    const parsed = await rawPost(
      `${stack.running.url}/mcp`,
      { ...headers, 'content-type': 'application/json' },
      Buffer.from(call),
    );
    expect(parsed.status).toBe(403);
    expect(parsed.headers['www-authenticate']).toContain('error="insufficient_scope"');

    expect(await enrichAudit()).toBe(before);
    expect(stack.sandboxes.hubspot.getContact(id)).toMatchObject({ jobtitle: 'Typed by a person' });
    expect(stack.sandboxes.hubspot.getContact(id)!.crm_enrich_partner_id).toBeFalsy();
  });

  it('answers malformed JSON with -32700 and an empty body likewise', async () => {
    for (const body of ['{"jsonrpc": "2.0", "id": 1, "method": ', '"just a string"', '']) {
      const res = await post({}, body);
      expect(res.status, body).toBe(400);
      expect(await res.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 } });
    }
  });

  it('refuses JSON-RPC batches from 2025-06-18 on, and keeps them for 2025-03-26 clients', async () => {
    const batch = [
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: 2, method: 'ping' },
    ];
    for (const version of ['2025-06-18', '2025-11-25', MODERN]) {
      const res = await post({ 'mcp-protocol-version': version }, batch);
      expect(res.status, version).toBe(400);
      expect(await res.json()).toMatchObject({ error: { code: -32600, message: expect.stringContaining('batches') } });
    }
    const old = await post({}, batch);
    expect(old.status).toBe(200);
    const text = await old.text();
    expect(text).toContain('"id":1');
    expect(text).toContain('"id":2');
  });
});
