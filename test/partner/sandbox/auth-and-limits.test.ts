import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FilterErrorBody, GenericErrorBody } from '../../../src/partner/schemas.js';
import { startPartnerSandbox, type PartnerSandbox } from '../../../src/partner/sandbox/server.js';
import { call } from './http.js';

let sandbox: PartnerSandbox;
beforeAll(async () => {
  sandbox = await startPartnerSandbox({ port: 0, companies: 30, people: 60, keys: ['sandbox-key', 'sandbox-key-2'] });
});
afterAll(() => sandbox.close());

const ENDPOINTS: [string, unknown?][] = [
  ['/company?id=co_au000001'],
  ['/people?id=pe_0000001'],
  ['/people/search', {}],
  ['/filter-options'],
];

describe('authentication', () => {
  it('answers 401 with the generic body when the key is missing or invalid, on every endpoint', async () => {
    for (const [path, body] of ENDPOINTS) {
      for (const key of [null, 'wrong-key', '']) {
        const answer = await call(sandbox.url, path, { key, body });
        expect(answer.status, `${path} ${key}`).toBe(401);
        expect(GenericErrorBody.parse(answer.body).error).toBe(401);
      }
    }
    const basic = await fetch(`${sandbox.url}/filter-options`, {
      headers: { authorization: 'Basic c2FuZGJveC1rZXk=' },
    });
    expect(basic.status).toBe(401);
  });

  it('answers 403 org_required for a key that belongs to no organisation', async () => {
    for (const [path, body] of ENDPOINTS) {
      const answer = await call(sandbox.url, path, { key: 'sandbox-key-no-org', body });
      expect(answer.status, path).toBe(403);
      expect(FilterErrorBody.parse(answer.body).error.code).toBe('org_required');
    }
  });

  it('serves the valid keys, with the scheme in any case', async () => {
    expect((await call(sandbox.url, '/filter-options', { key: 'sandbox-key-2' })).status).toBe(200);
    const lower = await fetch(`${sandbox.url}/filter-options`, { headers: { authorization: 'bearer sandbox-key' } });
    expect(lower.status).toBe(200);
  });

  it('answers unknown paths with 404 and wrong methods with 405, both in the generic body', async () => {
    const missing = await call(sandbox.url, '/companies?id=1');
    expect(missing.status).toBe(404);
    expect(GenericErrorBody.parse(missing.body).message).toMatch(/GET \/company/);
    const wrong = await call(sandbox.url, '/people/search');
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('POST');
  });
});

describe('rate limit', () => {
  const key = 'sandbox-key-2';
  const burst = (n: number) =>
    Promise.all(Array.from({ length: n }, () => call(sandbox.url, '/filter-options?identifiers=revenue', { key })));
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

  it(
    'answers 429 with Retry-After past 50 requests in a second, counts only served ones, ' +
      'and reports the busiest second',
    async () => {
      sandbox.resetStats();
      const first = await burst(60);
      const firstDone = performance.now();
      expect(first.filter((a) => a.status === 200)).toHaveLength(50);
      const limited = first.filter((a) => a.status === 429);
      expect(limited).toHaveLength(10);
      for (const answer of limited) {
        expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        expect(GenericErrorBody.parse(answer.body).error).toBe(429);
      }
      expect(sandbox.stats().keys[key]).toEqual({ served: 50, rejected: 10, maxWindow: 60 });

      await sleep(300);
      const second = await burst(50);
      expect(second.every((a) => a.status === 429)).toBe(true);

      // A second after the served requests, the 60 refused ones are still inside the window; the key
      // is served again only because refusals do not count toward the limit.
      await sleep(firstDone + 1050 - performance.now());
      expect((await call(sandbox.url, '/filter-options?identifiers=revenue', { key })).status).toBe(200);
      expect((await call(sandbox.url, '/filter-options?identifiers=revenue')).status).toBe(200);

      const stats = await call(sandbox.url, '/__sandbox/stats', { key: null });
      expect(stats.body).toMatchObject({
        keys: { [key]: { served: 51, rejected: 60, maxWindow: 110 }, 'sandbox-key': { served: 1 } },
      });
    },
  );
});

describe('failures and latency', () => {
  it('answers the configured share of requests with 500 and the generic body, and recovers', async () => {
    sandbox.setFailRate(1);
    const down = await call(sandbox.url, '/company?id=co_au000001');
    expect(down.status).toBe(500);
    expect(GenericErrorBody.parse(down.body)).toEqual({ error: 500, message: expect.any(String) });
    sandbox.setFailRate(0.5);
    const mixed = [];
    for (let i = 0; i < 40; i++) mixed.push((await call(sandbox.url, '/filter-options?identifiers=revenue')).status);
    expect(mixed).toContain(500);
    expect(mixed).toContain(200);
    sandbox.setFailRate(0);
    expect((await call(sandbox.url, '/company?id=co_au000001')).status).toBe(200);
    expect(sandbox.stats().injectedFailures).toBe(1 + mixed.filter((s) => s === 500).length);
    expect(() => sandbox.setFailRate(2)).toThrow(RangeError);
  });

  it('flips the fail rate over HTTP and refuses a bad rate', async () => {
    expect((await call(sandbox.url, '/__sandbox/fail-rate?rate=1', { key: null, method: 'POST' })).status).toBe(200);
    expect((await call(sandbox.url, '/filter-options')).status).toBe(500);
    expect((await call(sandbox.url, '/__sandbox/fail-rate?rate=0', { key: null, method: 'POST' })).status).toBe(200);
    expect((await call(sandbox.url, '/filter-options')).status).toBe(200);
    expect((await call(sandbox.url, '/__sandbox/fail-rate?rate=abc', { key: null, method: 'POST' })).status).toBe(400);
  });

  it('adds the configured latency to every API response, errors included', async () => {
    const slow = await startPartnerSandbox({ port: 0, companies: 5, people: 5, latencyMs: 150 });
    try {
      const t0 = performance.now();
      expect((await call(slow.url, '/filter-options?identifiers=revenue')).status).toBe(200);
      const api = performance.now() - t0;
      const t1 = performance.now();
      expect((await call(slow.url, '/company?id=nope')).status).toBe(404);
      const error = performance.now() - t1;
      expect(api).toBeGreaterThanOrEqual(145);
      expect(error).toBeGreaterThanOrEqual(145);
    } finally {
      await slow.close();
    }
  });
});

describe('what the sandbox says of its own event loop', () => {
  it('reports how long its loop was held, over HTTP, and forgets it on reset', async () => {
    sandbox.resetStats();
    // The measure starts again from its next turn of the loop.
    await new Promise((r) => setTimeout(r, 20));
    // Hold the loop the sandbox runs on for 120 ms, as a busy machine would.
    const until = performance.now() + 120;
    while (performance.now() < until);
    await new Promise((r) => setTimeout(r, 20));
    const res = await fetch(`${sandbox.url}/__sandbox/stats`);
    const { loopDelayMs } = (await res.json()) as { loopDelayMs: { p99: number; max: number } };
    expect(loopDelayMs.max).toBeGreaterThanOrEqual(100);
    expect(loopDelayMs.p99).toBeLessThanOrEqual(loopDelayMs.max);
    sandbox.resetStats();
    expect(sandbox.stats().loopDelayMs.max).toBe(0);
  });
});
