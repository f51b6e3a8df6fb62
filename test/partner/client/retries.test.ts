import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Company, Person } from '../../../src/partner/schemas.js';
import { startPartnerSandbox } from '../../../src/partner/sandbox/server.js';
import { failure, partnerFixture, KEY, type PartnerFixture } from './fixtures.js';

let fx: PartnerFixture;
beforeAll(async () => {
  fx = await partnerFixture();
});
afterAll(async () => {
  await fx.close();
});

/** A sandbox that allows one request a second, with that second already spent. */
async function spentSandbox() {
  const limited = await startPartnerSandbox({ port: 0, companies: 50, people: 100, rateLimitPerSecond: 1 });
  const first = await fetch(`${limited.url}/filter-options`, { headers: { authorization: `Bearer ${KEY}` } });
  await first.arrayBuffer();
  expect(first.status).toBe(200);
  return limited;
}

describe('partner client retries against the sandbox', () => {
  it('at a 30% failure rate every lookup still succeeds, each failure retried once more via the limiter', async () => {
    const { client, events, limiter } = fx.client({ maxRetries: 10 });
    const failuresBefore = fx.sandbox.stats().injectedFailures;
    fx.sandbox.setFailRate(0.3);
    try {
      const lookups: Array<Promise<Company | Person | null>> = fx.sample.companies.flatMap((c, i) => [
        client.lookupCompany({ by: 'id', value: c.id! }),
        client.lookupPerson({ by: 'id', value: fx.sample.people[i]!.id! }),
      ]);
      const found = await Promise.all(lookups);
      expect(found.every((r) => r !== null)).toBe(true);
    } finally {
      fx.sandbox.setFailRate(0);
    }
    const retries = events.filter((e) => e.kind === 'retry');
    expect(retries.length).toBeGreaterThan(0);
    expect(retries.length).toBe(fx.sandbox.stats().injectedFailures - failuresBefore);
    expect(retries.every((e) => e.status === 500 && e.code === 'server_error')).toBe(true);
    expect(events.filter((e) => e.kind === 'ok')).toHaveLength(40);
    expect(limiter.counts().dispatched).toBe(events.length);
  });

  it('at a 100% failure rate gives up after the bounded attempts, each one counted', async () => {
    const { client, events, limiter } = fx.client({ maxRetries: 3 });
    const before = fx.served();
    fx.sandbox.setFailRate(1);
    let error: Awaited<ReturnType<typeof failure>>;
    try {
      error = await failure(client.lookupCompany({ by: 'id', value: fx.sample.companies[0]!.id! }));
    } finally {
      fx.sandbox.setFailRate(0);
    }
    expect(error.status).toBe(500);
    expect(error.code).toBe('server_error');
    expect(error.retryable).toBe(true);
    expect(error.attempts).toBe(4);
    expect(events.map((e) => e.kind)).toEqual(['retry', 'retry', 'retry', 'failed']);
    expect(events.map((e) => e.attempt)).toEqual([1, 2, 3, 4]);
    expect(fx.served() - before).toBe(4);
    expect(limiter.counts().dispatched).toBe(4);
  });

  it('waits for Retry-After on 429 before trying again', async () => {
    const limited = await spentSandbox();
    try {
      // A limiter far above the sandbox's limit, so the sandbox is the one to refuse.
      const { client, events } = fx.client({ baseUrl: limited.url, max: 1000 });
      const started = performance.now();
      const found = await client.lookupCompany({ by: 'id', value: 'co_au000001' });
      const elapsed = performance.now() - started;
      expect(found?.id).toBe('co_au000001');
      expect(events.map((e) => [e.status, e.kind])).toEqual([
        [429, 'retry'],
        [200, 'ok'],
      ]);
      expect(limited.stats().keys[KEY]!.rejected).toBe(1);
      // The sandbox says Retry-After: 1; the backoff alone (5 ms base) would have retried at once.
      expect(elapsed).toBeGreaterThanOrEqual(995);
    } finally {
      await limited.close();
    }
  });

  it('fails at once, carrying retryAfterMs, when Retry-After is longer than it may wait', async () => {
    const limited = await spentSandbox();
    try {
      const { client, events } = fx.client({ baseUrl: limited.url, max: 1000, maxRetryAfterMs: 100 });
      const error = await failure(client.lookupCompany({ by: 'id', value: 'co_au000001' }));
      expect(error.status).toBe(429);
      expect(error.code).toBe('rate_limited');
      expect(error.retryable).toBe(true);
      expect(error.retryAfterMs).toBeGreaterThanOrEqual(1000);
      expect(error.attempts).toBe(1);
      expect(events).toHaveLength(1);
    } finally {
      await limited.close();
    }
  });

  it('retries a timeout a bounded number of times, then says so', async () => {
    const slow = await startPartnerSandbox({ port: 0, companies: 50, people: 100, latencyMs: 400 });
    try {
      const { client, events } = fx.client({ baseUrl: slow.url, timeoutMs: 50, maxRetries: 2 });
      const error = await failure(client.lookupCompany({ by: 'id', value: 'co_au000001' }));
      expect(error.code).toBe('timeout');
      expect(error.status).toBe(0);
      expect(error.retryable).toBe(true);
      expect(error.attempts).toBe(3);
      expect(error.message).toMatch(/50 ms.*PARTNER_TIMEOUT_MS/);
      expect(events.map((e) => e.kind)).toEqual(['retry', 'retry', 'failed']);
      expect(slow.stats().keys[KEY]?.served).toBe(3);
    } finally {
      await slow.close();
    }
  });

  it('retries connection failures a bounded number of times, then says so', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const { client, events } = fx.client({ baseUrl: `http://127.0.0.1:${port}`, maxRetries: 2 });
    const error = await failure(client.lookupPerson({ by: 'id', value: 'pe_0000001' }));
    expect(error.code).toBe('connection_failed');
    expect(error.attempts).toBe(3);
    expect(error.message).toMatch(/ECONNREFUSED.*PARTNER_BASE_URL/);
    expect(events).toHaveLength(3);
  });
});
