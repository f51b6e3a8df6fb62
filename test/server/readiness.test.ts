/**
 * /readyz answers anyone, so it names the checks that failed and nothing of why: the error text (a host,
 * a port, a user, a table) goes to the log, once per new failure.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { readinessHandler, type ReadinessCheck, type ReadinessLog } from '../../src/server/readiness.js';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
});

const RAW = 'connect ECONNREFUSED 10.0.4.17:5432 (user crm_enrich_prod, relation "crm_enrich"."job")';

async function serve(checks: ReadinessCheck[], log: ReadinessLog): Promise<string> {
  const app = express();
  app.get('/readyz', readinessHandler(checks, log));
  server = createServer(app).listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/readyz`;
}

function recorder() {
  const lines: { level: string; fields: Record<string, unknown>; message: string }[] = [];
  const log = {
    warn: (fields: Record<string, unknown>, message: string) => lines.push({ level: 'warn', fields, message }),
    info: (fields: Record<string, unknown>, message: string) => lines.push({ level: 'info', fields, message }),
  } as unknown as ReadinessLog;
  return { lines, log };
}

describe('/readyz', () => {
  it('names the failed checks, never their error text, and logs the text once', async () => {
    let databaseUp = false;
    const { lines, log } = recorder();
    const url = await serve(
      [
        {
          name: 'database',
          check: async () => {
            if (!databaseUp) throw new Error(RAW);
          },
        },
        { name: 'queue', check: async () => undefined },
        {
          name: 'rate_limiter',
          required: false,
          check: async () => {
            throw new Error('Redis at 10.0.4.18:6379 refused AUTH for default');
          },
        },
      ],
      log,
    );

    const res = await fetch(url);
    expect(res.status).toBe(503);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({
      status: 'not_ready',
      failed: ['database', 'rate_limiter'],
      checks: [
        { name: 'database', ok: false },
        { name: 'queue', ok: true },
        { name: 'rate_limiter', ok: false, required: false },
      ],
    });
    expect(text).not.toMatch(/10\.0\.4|ECONNREFUSED|crm_enrich|AUTH/);
    const failures = lines.filter((l) => l.level === 'warn');
    expect(failures.map((l) => l.fields.check)).toEqual(['database', 'rate_limiter']);
    expect((failures[0]!.fields.err as Error).message).toBe(RAW);

    // A probe every few seconds does not repeat the same failure in the log.
    await (await fetch(url)).text();
    expect(lines.filter((l) => l.level === 'warn')).toHaveLength(2);

    // An optional check failing leaves the service ready, and still named.
    databaseUp = true;
    const ready = await fetch(url);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ready', failed: ['rate_limiter'] });
    expect(lines.at(-1)).toMatchObject({ level: 'info', fields: { check: 'database' } });
  });
});
