/**
 * The server's mounting of CRM entry points, the same for every CRM: the head is checked before the body
 * is read, the body is read within the limit, the budget and the deadline, and only then parsed, run and
 * rendered. A small entry point stands in for a CRM's; its one record is of an object no mapping has,
 * so the on-demand enrichment answers `skipped` without touching the store.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { EntryPointError, jsonBody, type EnrichRequest, type EntryPoint } from '../../src/core/entry-point.js';
import { requestBodyBudget } from '../../src/server/body-budget.js';
import { crmEntryPoints } from '../../src/server/crm-entry-points.js';
import type { EntryPointContext } from '../../src/server/entry-point-context.js';
import { slowSend } from '../e2e/slow-sender.js';

const unused = () => {
  throw new Error('an unmapped record never reaches the store');
};
const context: EntryPointContext = {
  store: {
    recordView: unused,
    audit: { record: unused },
    queue: { lookup: unused },
    workflowCallbacks: { claim: unused, setJob: unused, conclude: unused },
  },
  ports: { enqueue: { enqueue: unused } },
  connectors: [],
  mappings: { get: () => undefined },
};

const parsedBodies: string[] = [];
const testEntryPoint: EntryPoint<EnrichRequest> = {
  method: 'POST',
  path: '/test/actions/:name',
  verifyHead: (head) =>
    head.headers['x-test-secret'] === 'right'
      ? undefined
      : new EntryPointError(401, 'invalid_secret', 'X-Test-Secret is wrong', { field: 'X-Test-Secret' }),
  async parse(request) {
    parsedBodies.push(request.rawBody.toString('utf8'));
    const { objectType } = jsonBody(request, z.object({ objectType: z.string() }));
    return {
      kind: 'enrich',
      connection: request.params.name!,
      trigger: 'flow',
      waitMs: 0,
      records: [{ objectType, recordId: request.query.id ?? 'none' }],
    };
  },
  render: async (request, answer) => ({ status: 200, body: { connection: request.connection, ...answer } }),
};

let server: Server | undefined;

async function serve(options: { budgetBytes?: number; bodyTimeoutMs?: number } = {}): Promise<string> {
  const app = express();
  app.use(
    crmEntryPoints({
      registry: [{ crm: 'salesforce', entryPoints: [testEntryPoint] }],
      context,
      publicUrl: 'https://crm-enrich.example',
      budget: requestBodyBudget(options.budgetBytes),
      bodyTimeoutMs: options.bodyTimeoutMs ?? 10_000,
    }),
  );
  server = createServer(app).listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  parsedBodies.length = 0;
});

describe('CRM entry points, as the server mounts them', () => {
  it('parses, runs and renders a request whose head and body pass', async () => {
    const url = await serve();
    const res = await fetch(`${url}/test/actions/main?id=7`, {
      method: 'POST',
      headers: { 'x-test-secret': 'right', 'content-type': 'application/json' },
      body: JSON.stringify({ objectType: 'Widget' }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      connection: 'main',
      results: [{ outcome: 'skipped', fieldsWritten: 0, matched: false }],
    });
  });

  it("answers an entry point's refusal in the API's error shape", async () => {
    const url = await serve();
    const res = await fetch(`${url}/test/actions/main`, {
      method: 'POST',
      headers: { 'x-test-secret': 'right' },
      body: 'not json',
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: { code: 'invalid_json', message: 'body: not valid JSON', details: { field: 'body' } },
    });
  });

  it('refuses from the head before the body is sent, and closes the connection', async () => {
    const url = await serve();
    const sent = await slowSend(url, '/test/actions/main', {
      headers: { 'content-length': '100000', 'x-test-secret': 'wrong' },
      bodyBytes: 100_000,
      chunkBytes: 1_000,
      intervalMs: 50,
    });
    expect(sent.status).toBe(401);
    expect(sent.headers.connection).toBe('close');
    expect(JSON.parse(sent.body)).toMatchObject({ error: { code: 'invalid_secret' } });
    expect(sent.sentBeforeAnswer).toBeLessThan(100_000);
    expect(parsedBodies).toEqual([]);
  });

  it('refuses a declared length over 64 KB and a compressed body from the head', async () => {
    const url = await serve();
    const large = await slowSend(url, '/test/actions/main', {
      headers: { 'content-length': String(64 * 1024 + 1), 'x-test-secret': 'right' },
      bodyBytes: 0,
    });
    expect(large.status).toBe(413);
    expect(JSON.parse(large.body)).toEqual({
      error: { code: 'body_too_large', message: 'body: larger than 64 KB', details: { field: 'body' } },
    });
    const gzip = await slowSend(url, '/test/actions/main', {
      headers: { 'content-length': '10', 'content-encoding': 'gzip', 'x-test-secret': 'right' },
      bodyBytes: 0,
    });
    expect(gzip.status).toBe(415);
    expect(JSON.parse(gzip.body)).toMatchObject({ error: { code: 'unsupported_encoding' } });
    expect(parsedBodies).toEqual([]);
  });

  it('takes a body of exactly 64 KB', async () => {
    const url = await serve();
    const body = JSON.stringify({ objectType: 'Widget', pad: '' });
    const padded = body.replace('"pad":""', `"pad":"${'x'.repeat(64 * 1024 - body.length)}"`);
    expect(Buffer.byteLength(padded)).toBe(64 * 1024);
    const res = await fetch(`${url}/test/actions/main`, {
      method: 'POST',
      headers: { 'x-test-secret': 'right', 'content-type': 'application/json' },
      body: padded,
    });
    expect(res.status).toBe(200);
  });

  it('cuts off a body that declares no length once it grows past 64 KB', async () => {
    const url = await serve();
    const sent = await slowSend(url, '/test/actions/main', {
      headers: { 'transfer-encoding': 'chunked', 'x-test-secret': 'right' },
      bodyBytes: 1024 * 1024,
      chunkBytes: 8 * 1024,
      intervalMs: 5,
      chunked: true,
    });
    expect(sent.status).toBe(413);
    expect(sent.headers.connection).toBe('close');
    expect(JSON.parse(sent.body)).toMatchObject({ error: { code: 'body_too_large' } });
    expect(sent.sentBeforeAnswer).toBeLessThan(1024 * 1024);
    expect(parsedBodies).toEqual([]);
  });

  it('refuses a body that does not arrive within the deadline', async () => {
    const url = await serve({ bodyTimeoutMs: 200 });
    const sent = await slowSend(url, '/test/actions/main', {
      headers: { 'content-length': '100', 'x-test-secret': 'right' },
      bodyBytes: 0,
    });
    expect(sent.status).toBe(408);
    expect(JSON.parse(sent.body)).toMatchObject({ error: { code: 'body_too_slow' } });
    expect(parsedBodies).toEqual([]);
  });

  it('asks the caller to come back later when the body budget is full', async () => {
    const url = await serve({ budgetBytes: 1_000 });
    const sent = await slowSend(url, '/test/actions/main', {
      headers: { 'content-length': '2000', 'x-test-secret': 'right' },
      bodyBytes: 0,
    });
    expect(sent.status).toBe(503);
    expect(sent.headers['retry-after']).toBe('10');
    expect(JSON.parse(sent.body)).toMatchObject({ error: { code: 'busy' } });
  });
});
