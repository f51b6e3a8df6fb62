/**
 * Credits are reserved when a request goes out, not while it waits for the limiter: lookups queued
 * behind a slow limit have spent nothing, and when all are done the day's count equals what the
 * partner served.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PartnerClient } from '../../src/partner/client.js';
import { startPartnerSandbox, SANDBOX_KEY, type PartnerSandbox } from '../../src/partner/sandbox/server.js';
import { createRateLimiter, type SharedRateLimiter } from '../../src/limits/create-rate-limiter.js';
import { BudgetExhaustedError, LOOKUPS_COUNTER, PartnerLookups } from '../../src/enrich/partner-lookups.js';
import { storePorts } from '../../src/app/store-ports.js';
import { useTestDb } from '../support/db.js';

let sandbox: PartnerSandbox;
beforeAll(async () => {
  sandbox = await startPartnerSandbox({ port: 0, companies: 200, people: 40 });
});
afterAll(async () => {
  await sandbox.close();
});

function auCompanyIds(): string[] {
  return sandbox.dataset.companies.map((c) => c.id ?? '').filter((id) => id.startsWith('co_au'));
}

describe('partner credits', () => {
  const db = useTestDb('pglite');

  async function setUp(max: number, budget: number) {
    const store = await db.openStore();
    const ports = storePorts(store);
    const limiter = createRateLimiter({ id: `credits-${Math.random()}`, max, windowMs: 1000, marginMs: 0 });
    const client = new PartnerClient({ baseUrl: sandbox.url, apiKey: SANDBOX_KEY, limiter, maxRetries: 0 });
    const lookups = new PartnerLookups({
      client,
      cache: ports.cache,
      counters: ports.counters,
      dailyBudget: budget,
      hardCap: budget,
    });
    return { store, ports, limiter, lookups };
  }

  /** A client that retries the partner's refusals quickly, as a lookup under faults does. */
  const retryingClient = (limiter: SharedRateLimiter) =>
    new PartnerClient({
      baseUrl: sandbox.url,
      apiKey: SANDBOX_KEY,
      limiter,
      maxRetries: 6,
      baseDelayMs: 50,
      maxDelayMs: 200,
    });

  it('reserves a credit when the request is sent, not while it waits for the limiter', async () => {
    const { ports, limiter, lookups } = await setUp(1, 100);
    sandbox.resetStats();
    try {
      const companies = auCompanyIds().slice(0, 6);
      const all = Promise.all(companies.map((c) => lookups.find('company', [{ by: 'id', value: c }], 'AU', 'bulk')));
      // One goes out in the first second; five wait for the limiter and must not have been counted.
      await vi.waitFor(() => expect(limiter.counts()).toMatchObject({ queued: 5, dispatched: 1 }), {
        timeout: 900,
        interval: 10,
      });
      await vi.waitFor(async () => expect(await ports.counters.get(LOOKUPS_COUNTER)).toBe(1), {
        timeout: 500,
        interval: 10,
      });
      expect(limiter.counts().queued).toBe(5);
      const hits = await all;
      expect(hits.every((h) => h?.key.by === 'id')).toBe(true);
      const served = Object.values(sandbox.stats().keys).reduce((n, k) => n + k.served, 0);
      expect(await ports.counters.get(LOOKUPS_COUNTER)).toBe(served);
      expect(served).toBe(6);
    } finally {
      await limiter.stop();
    }
  });

  it('sends nothing once the budget is spent, and counts exactly the budget', async () => {
    const { ports, limiter, lookups } = await setUp(50, 3);
    sandbox.resetStats();
    try {
      const companies = auCompanyIds().slice(6, 12);
      const results = await Promise.allSettled(
        companies.map((c) => lookups.find('company', [{ by: 'id', value: c }], 'AU', 'bulk')),
      );
      expect(
        results.filter((r) => r.status === 'fulfilled'),
        String(results.map((r) => r.status === 'rejected' && r.reason)),
      ).toHaveLength(3);
      const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(refused).toHaveLength(3);
      for (const r of refused) expect(r.reason).toBeInstanceOf(BudgetExhaustedError);
      const served = Object.values(sandbox.stats().keys).reduce((n, k) => n + k.served, 0);
      expect(served).toBe(3);
      expect(await ports.counters.get(LOOKUPS_COUNTER)).toBe(3);
    } finally {
      await limiter.stop();
    }
  });

  it(
    'gives a credit back for an attempt the partner refused unserved (429), ' +
      'and keeps it for a 500 it may have served',
    async () => {
      const { ports, limiter } = await setUp(50, 100);
      const client = retryingClient(limiter);
      const lookups = new PartnerLookups({
        client,
        cache: ports.cache,
        counters: ports.counters,
        dailyBudget: 100,
        hardCap: 100,
      });
      sandbox.resetStats();
      // Every request refused with 429 for the first 600 ms, then 500s for a third of what gets through.
      sandbox.setFaults({ bursts: { everyMs: 60_000, forMs: 600 }, failRate: 0.3 });
      try {
        const companies = auCompanyIds().slice(12, 20);
        const hits = await Promise.all(
          companies.map((c) => lookups.find('company', [{ by: 'id', value: c }], 'AU', 'bulk')),
        );
        expect(hits.every((h) => h !== null)).toBe(true);
        const stats = sandbox.stats();
        expect(stats.injectedBursts).toBeGreaterThan(0);
        const served = Object.values(stats.keys).reduce((n, k) => n + k.served, 0);
        // Served counts every request the partner took on, 500s included; the 429s are not among them.
        expect(await ports.counters.get(LOOKUPS_COUNTER)).toBe(served);
        expect(served).toBe(companies.length + stats.injectedFailures);
      } finally {
        sandbox.setFaults({ bursts: undefined, failRate: 0 });
        await limiter.stop();
      }
    },
  );

  it(
    'gives the credit of a refused request back once the store answers again, ' +
      'and goes on with the lookup meanwhile',
    async () => {
      const { ports, limiter } = await setUp(50, 100);
      const client = retryingClient(limiter);
      // The store refuses the first two refunds, as it does while Postgres restarts.
      let refused = 0;
      const counters = {
        ...ports.counters,
        get: (name: string) => ports.counters.get(name),
        reserve: (name: string, limit: number) => ports.counters.reserve(name, limit),
        increment: async (name: string, by?: number) => {
          if ((by ?? 1) < 0 && refused < 2) {
            refused++;
            throw new Error('connection terminated');
          }
          return ports.counters.increment(name, by);
        },
      };
      const lookups = new PartnerLookups({ client, cache: ports.cache, counters, dailyBudget: 100, hardCap: 100 });
      sandbox.resetStats();
      sandbox.setFaults({ bursts: { everyMs: 60_000, forMs: 400 } });
      try {
        const companies = auCompanyIds().slice(20, 24);
        const hits = await Promise.all(
          companies.map((c) => lookups.find('company', [{ by: 'id', value: c }], 'AU', 'bulk')),
        );
        expect(hits.every((h) => h !== null)).toBe(true);
        expect(refused).toBe(2);
        const served = Object.values(sandbox.stats().keys).reduce((n, k) => n + k.served, 0);
        expect(served).toBe(companies.length);
        // The refunds the store refused are paid within a second or two.
        await vi.waitFor(async () => expect(await ports.counters.get(LOOKUPS_COUNTER)).toBe(served), {
          timeout: 5_000,
          interval: 100,
        });
      } finally {
        sandbox.setFaults({ bursts: undefined });
        await limiter.stop();
      }
    },
  );

  it('spends credits a caller reserved instead of reserving its own, refuses a call when none is left', async () => {
    const { store, ports, limiter, lookups } = await setUp(50, 100);
    sandbox.resetStats();
    try {
      await ports.counters.increment(LOOKUPS_COUNTER, 10);
      const held = await store.reservations.reserve(LOOKUPS_COUNTER, 2, 100);
      const [a, b, c] = auCompanyIds().slice(12, 15);
      await lookups.find('company', [{ by: 'id', value: a! }], 'AU', 'interactive', held);
      // A cached answer spends nothing; the lookup itself counted nothing past the reservation.
      await lookups.find('company', [{ by: 'id', value: a! }], 'AU', 'interactive', held);
      await lookups.find('company', [{ by: 'id', value: b! }], 'AU', 'interactive', held);
      expect(held.spent).toBe(2);
      await expect(
        lookups.find('company', [{ by: 'id', value: c! }], 'AU', 'interactive', held),
      ).rejects.toBeInstanceOf(BudgetExhaustedError);
      const served = Object.values(sandbox.stats().keys).reduce((n, k) => n + k.served, 0);
      expect(served).toBe(2);
      await held.close();
      expect(await ports.counters.get(LOOKUPS_COUNTER)).toBe(12);
    } finally {
      await limiter.stop();
    }
  });

  it('says a lookup came from the cache whether the cached answer was a record or no match', async () => {
    const { ports, limiter, lookups } = await setUp(50, 100);
    sandbox.resetStats();
    try {
      const [known] = auCompanyIds().slice(20, 21);
      const missing = { by: 'fqdn', value: 'no-such-company.example' };
      expect(await lookups.lookup('company', { by: 'id', value: known! }, 'AU', 'interactive')).toMatchObject({
        hit: { fromCache: false },
        fromCache: false,
      });
      expect(await lookups.lookup('company', missing, 'AU', 'interactive')).toEqual({ hit: null, fromCache: false });
      expect(await lookups.lookup('company', { by: 'id', value: known! }, 'AU', 'interactive')).toMatchObject({
        hit: { fromCache: true },
        fromCache: true,
      });
      expect(await lookups.lookup('company', missing, 'AU', 'interactive')).toEqual({ hit: null, fromCache: true });
      const served = Object.values(sandbox.stats().keys).reduce((n, k) => n + k.served, 0);
      expect(served).toBe(2);
      expect(await ports.counters.get(LOOKUPS_COUNTER)).toBe(2);
    } finally {
      await limiter.stop();
    }
  });

  it('counts the credits find would spend, spending none: uncached keys up to a cached record', async () => {
    const { ports, limiter, lookups } = await setUp(50, 100);
    sandbox.resetStats();
    try {
      const [known] = auCompanyIds().slice(30, 31);
      const missing = { by: 'fqdn', value: 'nobody-has-this.example' };
      const byId = { by: 'id', value: known! };
      expect(await lookups.creditsFor('company', [missing, byId], 'AU')).toBe(2);
      await lookups.find('company', [missing, byId], 'AU', 'bulk');
      expect(await ports.counters.get(LOOKUPS_COUNTER)).toBe(2);
      // Both answers are cached now: the miss costs nothing again, and the cached record stops the count.
      expect(await lookups.creditsFor('company', [missing, byId, { by: 'fqdn', value: 'other.example' }], 'AU')).toBe(
        0,
      );
      expect(await lookups.creditsFor('company', [{ by: 'fqdn', value: 'other.example' }, byId], 'AU')).toBe(1);
      expect(Object.values(sandbox.stats().keys).reduce((n, k) => n + k.served, 0)).toBe(2);
    } finally {
      await limiter.stop();
    }
  });
});
