/**
 * Big Salesforce reads through Bulk API 2.0 query jobs, over real HTTP against the sandbox org with 5,000
 * contacts, on PGlite: the connector's bulk read page by page, a data-health scan through one query job
 * whose counts equal the REST scan's for a handful of API calls, a scan stopped mid-job that resumes on the
 * same job, and backfills that go through bulk above SALESFORCE_BULK_THRESHOLD and through REST below it.
 */
import { cachedAnswers } from '../../src/app/cached-answers.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSalesforceConnector } from '../../connectors/salesforce/connector.js';
import { startSalesforceSandbox, type SalesforceSandbox } from '../../connectors/salesforce/sandbox/server.js';
import { storePorts } from '../../src/app/store-ports.js';
import { salesforceSandboxFields } from '../../src/cli/embedded.js';
import { CrmError, type CrmConnector } from '../../src/core/connector.js';
import { driveBackfill, startBackfill } from '../../src/enrich/listing/backfill.js';
import { backfillDryRun } from '../../src/enrich/listing/backfill-dry-run.js';
import { emptyCounts } from '../../src/enrich/listing/health-counts.js';
import {
  driveHealthScan,
  wholeObjectReader,
  type HealthScanDeps,
  type ScanReader,
} from '../../src/enrich/listing/health-scan.js';
import { compileMapping, type CompiledMapping } from '../../src/mapping/compile.js';
import { loadMappings } from '../../src/mapping/loader.js';
import type { Store } from '../../src/store/store.js';
import { useTestDb } from '../support/db.js';

const CONTACTS = 5_000;
let sandbox: SalesforceSandbox;
let connector: CrmConnector;
let mapping: CompiledMapping;

beforeAll(async () => {
  const mappings = await loadMappings('mappings');
  mapping = compileMapping(
    mappings.find((m) => m.document.crm === 'salesforce' && m.document.object === 'Contact')!.document,
  );
  sandbox = await startSalesforceSandbox({
    customFields: salesforceSandboxFields(mappings),
    bulkQuery: { processingMs: 100 },
  });
  const account = sandbox.createRecord('Account', { Name: 'Acme', Website: 'https://acme.example' }, { notify: false });
  for (let i = 0; i < CONTACTS; i++) {
    const email = i % 10 === 0 ? null : i % 10 === 1 ? `someone${i}@gmail.com` : `p${i}@company${i % 50}.example`;
    sandbox.createRecord(
      'Contact',
      {
        LastName: `Person ${i}`,
        Email: email,
        Title: i % 3 === 0 ? 'Head of Sales, "EMEA"' : null,
        AccountId: i % 20 === 2 ? account : null,
      },
      { notify: false },
    );
  }
  connector = createSalesforceConnector({
    auth: { kind: 'token', instanceUrl: sandbox.url, accessToken: sandbox.accessToken },
    orgId: sandbox.orgId,
    apiReserve: 0,
    bulkPollMs: 40,
    bulkThreshold: 2_000,
  });
});
afterAll(async () => {
  await connector?.close();
  await sandbox?.close();
});

/** What a piece of work spent: the org's API calls in all, and by operation. */
async function spending<T>(work: () => Promise<T>): Promise<{ result: T; calls: number; ops: Record<string, number> }> {
  const before = sandbox.stats();
  const result = await work();
  const after = sandbox.stats();
  const ops: Record<string, number> = {};
  for (const [op, n] of Object.entries(after.byOperation)) {
    const spent = n - (before.byOperation[op] ?? 0);
    if (spent > 0) ops[op] = spent;
  }
  return { result, calls: after.apiCalls - before.apiCalls, ops };
}

describe('the connector bulk read', () => {
  it('reads every contact in pages through one query job, then deletes the job', async () => {
    const ids = new Set<string>();
    const { calls, ops } = await spending(async () => {
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await connector.bulkRead!('Contact', ['Email', 'Title', 'AccountId'], cursor, { pageSize: 2_000 });
        for (const r of page.records) ids.add(r.id);
        if (pages === 0) {
          const held = sandbox.records('Contact').find((r) => r.Id === page.records[3]!.id)!;
          expect(page.records[3]!.properties).toEqual({
            Email: held.Email,
            Title: held.Title ?? null,
            AccountId: held.AccountId ?? null,
          });
          expect(page.records[3]!.updatedAt).toBe(
            new Date(String(held.LastModifiedDate).replace('+0000', 'Z')).toISOString(),
          );
        }
        cursor = page.next;
        pages++;
      } while (cursor);
      expect(pages).toBe(3);
    });
    expect(ids.size).toBe(CONTACTS);
    expect(ops).toMatchObject({ 'bulk2.query.create': 1, 'bulk2.query.results': 3, 'bulk2.query.delete': 1 });
    expect(calls).toBeLessThanOrEqual(8);
  });

  it('refuses a cursor it did not issue, and fails a job Salesforce gave up on as unavailable', async () => {
    await expect(connector.bulkRead!('Contact', ['Email'], 'bm9wZQ')).rejects.toMatchObject({ code: 'validation' });
    sandbox.failQueryJobs(1);
    const failed = await connector.bulkRead!('Contact', ['Email'], undefined).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(CrmError);
    expect(failed).toMatchObject({ code: 'unavailable', message: expect.stringMatching(/ended Failed/) });
  });

  it('counts an object with one SELECT COUNT()', async () => {
    const { result, ops } = await spending(() => connector.countRecords!('Contact'));
    expect(result).toBe(CONTACTS);
    expect(ops).toEqual({ query: 1 });
  });
});

describe('data-health scans and backfills of a big org', () => {
  const t = useTestDb('pglite');

  const scanDeps = (store: Store, reader?: (c: CrmConnector) => ScanReader): HealthScanDeps => {
    const ports = storePorts(store);
    return {
      runs: store.health,
      states: (connection, objectType, ids) => ports.state.getMany(connection, objectType, ids),
      cached: async (keys) => keys.map(() => undefined),
      freeMail: { has: (d) => d === 'gmail.com' },
      refreshAfterDays: 30,
      ...(reader ? { reader } : {}),
    };
  };
  const restReader: (c: CrmConnector) => ScanReader = (c) => (objectType, properties, cursor) =>
    c.listRecords(objectType, { properties, limit: 2_000, ...(cursor ? { cursor } : {}) }, { priority: 'bulk' });

  it('scans 5,000 contacts through one bulk query job to the counts of the REST scan, in a few calls', async () => {
    const store = await t.openStore();
    const bulk = await spending(async () => {
      const run = await store.health.start('bulk', 'default', 'Contact', emptyCounts(mapping, true));
      return driveHealthScan(scanDeps(store), connector, 'Contact', mapping, run);
    });
    const rest = await spending(async () => {
      const run = await store.health.start('rest', 'default', 'Contact', emptyCounts(mapping, true));
      return driveHealthScan(scanDeps(store, restReader), connector, 'Contact', mapping, run);
    });
    expect(bulk.result.records).toBe(CONTACTS);
    expect(bulk.result).toEqual(rest.result);
    expect(bulk.result).toMatchObject({ noMatchKey: CONTACTS / 10, freeMail: CONTACTS / 10 });
    const title = bulk.result.properties.find((p) => p.property === 'Title')!;
    expect(title.filled).toBe(Math.ceil(CONTACTS / 3));
    // One count, one job (created, checked, one set of 5,000 rows, deleted): no query page at all.
    expect(bulk.ops).toMatchObject({ query: 1, 'bulk2.query.create': 1, 'bulk2.query.results': 1 });
    expect(bulk.ops['bulk2.query.delete']).toBe(1);
    expect(bulk.calls).toBeLessThanOrEqual(10);
    expect(rest.ops).toEqual({ query: 3 });
  });

  it('resumes a scan stopped in the middle of a bulk read on the same query job', async () => {
    const store = await t.openStore();
    let abort = new AbortController();
    // Sets of 1,000 rows: the first drive stops after its second page.
    const stopping = stopsAfter(2, 1_000, () => abort.abort());
    const { ops } = await spending(async () => {
      const first = await store.health.start('stopped', 'default', 'Contact', emptyCounts(mapping, true));
      const partial = await driveHealthScan(
        scanDeps(store, stopping),
        connector,
        'Contact',
        mapping,
        first,
        abort.signal,
      );
      expect(partial.records).toBe(2_000);
      const stored = (await store.health.running('default', 'Contact'))!;
      expect(stored.cursor).toMatch(/^bulk:/);
      abort = new AbortController();
      return driveHealthScan(scanDeps(store, stopping), connector, 'Contact', mapping, stored);
    });
    expect(stopping.pagesRead()).toBe(5);
    expect(ops).toMatchObject({ 'bulk2.query.create': 1, 'bulk2.query.results': 5, 'bulk2.query.delete': 1 });
    const resumed = (await store.health.list('default', 'Contact')).find((r) => r.id === 'stopped')!;
    const whole = await driveHealthScan(
      scanDeps(store, restReader),
      connector,
      'Contact',
      mapping,
      await store.health.start('whole', 'default', 'Contact', emptyCounts(mapping, true)),
    );
    expect(resumed.status).toBe('done');
    expect(resumed.counts).toEqual(whole);
  });

  it('stops a scan waiting for its query job at once, dropping the job, and resumes it later', async () => {
    const store = await t.openStore();
    // Checks a minute apart: a scan stopped while its job runs must not wait for the next check.
    const patient = createSalesforceConnector({
      auth: { kind: 'token', instanceUrl: sandbox.url, accessToken: sandbox.accessToken },
      apiReserve: 0,
      bulkPollMs: 60_000,
    });
    try {
      const abort = new AbortController();
      const run = await store.health.start('stopping', 'default', 'Contact', emptyCounts(mapping, true));
      const created = () => sandbox.stats().byOperation['bulk2.query.create'] ?? 0;
      const before = created();
      const { result, ops } = await spending(() => {
        // Stopped once the job exists and has had time to finish (100 ms), while the scan waits to check it.
        const watch = setInterval(() => {
          if (created() === before) return;
          clearInterval(watch);
          setTimeout(() => abort.abort(new Error('service stopping')), 250);
        }, 10);
        return driveHealthScan(scanDeps(store), patient, 'Contact', mapping, run, abort.signal);
      });
      expect(result.records).toBe(0);
      // The job had finished by then (100 ms): the abort is refused and the job deleted instead.
      expect(ops).toMatchObject({ 'bulk2.query.create': 1, 'bulk2.query.abort': 1, 'bulk2.query.delete': 1 });
      expect(ops['bulk2.query.results']).toBeUndefined();
      const stored = (await store.health.running('default', 'Contact'))!;
      expect(stored.cursor).toBeNull();
      const resumed = await driveHealthScan(scanDeps(store), connector, 'Contact', mapping, stored);
      expect(resumed.records).toBe(CONTACTS);
    } finally {
      await patient.close();
    }
  });

  it('starts a scan over when the query job it was reading is gone, to the counts of an unbroken scan', async () => {
    const store = await t.openStore();
    const abort = new AbortController();
    const stopping = stopsAfter(1, 2_000, () => abort.abort());
    const first = await store.health.start('gone', 'default', 'Contact', emptyCounts(mapping, true));
    await driveHealthScan(scanDeps(store, stopping), connector, 'Contact', mapping, first, abort.signal);
    const stored = (await store.health.running('default', 'Contact'))!;
    // Salesforce removes a job 7 days after it ended; here it is deleted while the scan is stopped.
    const { job } = JSON.parse(Buffer.from(stored.cursor!.slice('bulk:'.length), 'base64url').toString()) as {
      job: string;
    };
    const deleted = await fetch(`${sandbox.url}/services/data/v62.0/jobs/query/${job}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${sandbox.accessToken}` },
    });
    expect(deleted.status).toBe(204);
    const { result, ops } = await spending(() =>
      driveHealthScan(scanDeps(store, stopping), connector, 'Contact', mapping, stored),
    );
    // The stored set is refused (404), then a new job is read from its first set.
    expect(ops).toMatchObject({ 'bulk2.query.create': 1, 'bulk2.query.results': 4 });
    expect(result.records).toBe(CONTACTS);
    const whole = await driveHealthScan(
      scanDeps(store, restReader),
      connector,
      'Contact',
      mapping,
      await store.health.start('whole', 'default', 'Contact', emptyCounts(mapping, true)),
    );
    expect(result).toEqual(whole);
  });

  it('backfills more records than the threshold through bulk, and a limited one under it through REST', async () => {
    const store = await t.openStore();
    const ports = storePorts(store);
    const deps = {
      kv: ports.kv,
      queue: ports.enqueue,
      stale: ports.stale,
      states: (c: string, o: string, ids: string[]) => ports.state.getMany(c, o, ids),
      cached: cachedAnswers(store.cache),
      refreshAfterDays: 30,
    };
    const withKey = sandbox.records('Contact').filter((r) => r.Email).length;

    const big = await spending(async () =>
      driveBackfill(deps, connector, mapping, await startBackfill(deps, 'default', 'Contact', null)),
    );
    expect(big.result).toMatchObject({ status: 'listed', listed: CONTACTS, enqueued: withKey });
    // Pages of 2,000 records: three sets of one job, where REST would have listed 25 pages of 200.
    expect(big.ops).toMatchObject({ query: 1, 'bulk2.query.create': 1, 'bulk2.query.results': 3 });
    expect(big.calls).toBeLessThanOrEqual(10);

    const small = await spending(async () =>
      driveBackfill(deps, connector, mapping, await startBackfill(deps, 'default', 'Contact', 300)),
    );
    expect(small.result).toMatchObject({ status: 'listed', listed: 300 });
    // At or under the threshold the limit decides without counting: two REST pages of 200 and 100.
    expect(small.ops).toEqual({ query: 2 });

    // A limit over the threshold goes into the job's SOQL: the job holds what is read, and is deleted after it.
    const limited = await spending(async () =>
      driveBackfill(deps, connector, mapping, await startBackfill(deps, 'default', 'Contact', 2_500)),
    );
    expect(limited.result).toMatchObject({ status: 'listed', listed: 2_500 });
    expect(limited.ops).toMatchObject({ 'bulk2.query.create': 1, 'bulk2.query.results': 2, 'bulk2.query.delete': 1 });
  });

  it('previews a backfill of the whole object by reading it as the backfill would, through bulk', async () => {
    const store = await t.openStore();
    const ports = storePorts(store);
    const { result, ops } = await spending(() =>
      backfillDryRun(
        {
          stale: ports.stale,
          states: (c: string, o: string, ids: string[]) => ports.state.getMany(c, o, ids),
          cached: cachedAnswers(store.cache),
          refreshAfterDays: 30,
          freeMail: { has: (d) => d === 'gmail.com' },
          creates: () => false,
          created: async () => new Map(),
        },
        connector,
        'Contact',
        mapping,
        null,
      ),
    );
    expect(result).toMatchObject({
      listed: CONTACTS,
      wouldEnrich: sandbox.records('Contact').filter((r) => r.Email).length,
    });
    expect(ops).toMatchObject({ 'bulk2.query.create': 1, 'bulk2.query.results': 3, 'bulk2.query.delete': 1 });
  });
});

/**
 * A bulk reader in sets of `setSize` rows that calls `stop` once it has read `pages` pages, counted across
 * every drive it serves (`pagesRead`).
 */
function stopsAfter(
  pages: number,
  setSize: number,
  stop: () => void,
): ((c: CrmConnector) => ScanReader) & { pagesRead: () => number } {
  let read = 0;
  const readers = (c: CrmConnector): ScanReader => {
    const reader = wholeObjectReader(c, setSize);
    return async (objectType, properties, cursor) => {
      const page = await reader(objectType, properties, cursor);
      if (++read === pages) stop();
      return page;
    };
  };
  return Object.assign(readers, { pagesRead: () => read });
}
