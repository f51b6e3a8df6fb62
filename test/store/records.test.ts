import cron from 'node-cron';
import { expect, it } from 'vitest';
import { lookupKeyString } from '../../src/store/lookup-cache.js';
import { PostgresRunCoordinator } from '../../src/store/run-coordinator.js';
import { describeEachBackend } from '../support/db.js';

const rec = { connection: 'default', objectType: 'contact', recordId: '42' };

describeEachBackend('cache, audit, mappings, counters and cron claims', (t) => {
  it('caches hits and misses with their own TTLs, keyed by the normalised identifier', async () => {
    const store = await t.openStore({ cacheTtls: { hitSeconds: 3600, missSeconds: 60 } });
    const now = new Date('2026-05-01T12:00:00Z');
    const hitKey = { kind: 'person' as const, idType: 'email', value: ' Ada@Example.COM ', market: 'DE' };
    const missKey = { kind: 'company' as const, idType: 'domain', value: 'nothing.example' };
    await store.cache.putMany(
      [
        { key: hitKey, hit: true, response: { id: 'p-1', jobTitle: 'CTO' } },
        { key: missKey, hit: false },
      ],
      now,
    );

    const found = await store.cache.getMany(
      [
        { ...hitKey, value: 'ada@example.com', market: 'de' },
        missKey,
        { kind: 'person', idType: 'email', value: 'other@example.com' },
      ],
      now,
    );
    expect(found.get(lookupKeyString(hitKey))).toMatchObject({ hit: true, response: { id: 'p-1', jobTitle: 'CTO' } });
    expect(found.get(lookupKeyString(missKey))).toMatchObject({ hit: false });
    expect(found.size).toBe(2);
    expect(store.cache.stats()).toEqual({ hits: 1, negativeHits: 1, misses: 1 });

    // Two minutes later the miss has expired, the hit has not.
    const later = new Date(now.getTime() + 120_000);
    expect(await store.cache.get(missKey, later)).toBeUndefined();
    expect(await store.cache.get(hitKey, later)).toMatchObject({ hit: true });
    expect(await store.cache.prune(later)).toBe(1);
    await expect(store.cache.putMany([{ key: hitKey, hit: true }])).rejects.toMatchObject({ code: 'invalid_input' });
  });

  it('makes one call for concurrent requests of the same key', async () => {
    const store = await t.openStore();
    let calls = 0;
    const key = { kind: 'person' as const, idType: 'email', value: 'ada@example.com' };
    const slow = () =>
      new Promise<string>((resolve) => {
        calls++;
        setTimeout(() => resolve('answer'), 50);
      });
    const answers = await Promise.all([
      store.cache.singleFlight(key, slow),
      store.cache.singleFlight({ ...key, value: 'ADA@example.com' }, slow),
      store.cache.singleFlight(key, slow),
    ]);
    expect(answers).toEqual(['answer', 'answer', 'answer']);
    expect(calls).toBe(1);
    // Once settled, the next request calls again.
    await store.cache.singleFlight(key, slow);
    expect(calls).toBe(2);
  });

  it('keeps an audit trail per record, newest first, with rows that say why nothing was written', async () => {
    const { audit } = await t.openStore();
    await audit.record([
      { ...rec, property: 'jobtitle', oldValue: null, newValue: 'CTO', rule: 'fill_empty', jobId: 'j1' },
      { ...rec, property: 'phone', oldValue: '+1', newValue: '+2', rule: 'overwrite', jobId: 'j1' },
    ]);
    await audit.record([
      { ...rec, outcome: 'unchanged', reason: 'partner data unchanged since last run', jobId: 'j2' },
    ]);
    await audit.record([{ ...rec, recordId: '43', property: 'jobtitle', newValue: 'CEO' }]);
    const entries = await audit.forRecord(rec);
    expect(entries.map((e) => e.property ?? e.reason)).toEqual([
      'partner data unchanged since last run',
      'phone',
      'jobtitle',
    ]);
    expect(entries[0]).toMatchObject({ outcome: 'unchanged', property: null, jobId: 'j2' });
    expect(entries[1]).toMatchObject({ oldValue: '+1', newValue: '+2', rule: 'overwrite', jobId: 'j1' });
    const page = await audit.forRecord(rec, { limit: 1, beforeId: entries[0]!.id });
    expect(page.map((e) => e.property)).toEqual(['phone']);
    await expect(audit.record([{ ...rec }])).rejects.toMatchObject({ code: 'invalid_input' });
  });

  it('keeps every mapping version, one active per CRM object, and rolls back to any of them', async () => {
    const { mappings } = await t.openStore();
    const v1 = await mappings.save({
      crm: 'hubspot',
      objectType: 'contact',
      document: 'fields: {}',
      author: 'ada',
      comment: 'first',
    });
    const v2 = await mappings.save({
      crm: 'hubspot',
      objectType: 'contact',
      document: 'fields: {a: 1}',
      author: 'bob',
    });
    const draft = await mappings.save({
      crm: 'hubspot',
      objectType: 'contact',
      document: 'fields: {b: 2}',
      author: 'bob',
      activate: false,
    });
    await mappings.save({ crm: 'hubspot', objectType: 'company', document: 'fields: {}', author: 'ada' });
    expect([v1.version, v2.version, draft.version]).toEqual([1, 2, 3]);
    expect((await mappings.active('hubspot', 'contact'))?.version).toBe(2);

    const back = await mappings.activate('hubspot', 'contact', 1);
    expect(back).toMatchObject({ version: 1, active: true, author: 'ada', comment: 'first', document: 'fields: {}' });
    expect((await mappings.list('hubspot', 'contact')).map((v) => [v.version, v.active])).toEqual([
      [3, false],
      [2, false],
      [1, true],
    ]);
    expect((await mappings.allActive()).map((v) => `${v.objectType}@${v.version}`)).toEqual(['company@1', 'contact@1']);
    await expect(mappings.activate('hubspot', 'contact', 9)).rejects.toMatchObject({ code: 'not_found' });
    await expect(
      mappings.save({ crm: 'hubspot', objectType: 'contact', document: '', author: 'x' }),
    ).rejects.toMatchObject({ details: { field: 'document' } });
  });

  it('keeps named settings shared between instances', async () => {
    const a = await t.openStore();
    const b = await t.openStore({ schema: a.schema });
    expect(await a.settings.get('sweep.hubspot.contact')).toBeUndefined();
    await a.settings.set('sweep.hubspot.contact', '2026-05-01T00:00:00Z');
    await b.settings.set('sweep.hubspot.contact', '2026-05-02T00:00:00Z');
    expect(await a.settings.get('sweep.hubspot.contact')).toBe('2026-05-02T00:00:00Z');
  });

  it('counts per day atomically', async () => {
    const { counters } = await t.openStore();
    const results = await Promise.all(Array.from({ length: 20 }, () => counters.increment('lookups', 1, '2026-05-01')));
    expect(results.sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    await counters.increment('cache_hits', 5, '2026-05-01');
    await counters.increment('lookups', 3, '2026-05-02');
    expect(await counters.get('lookups', '2026-05-01')).toBe(20);
    expect(await counters.all('2026-05-01')).toEqual({ cache_hits: 5, lookups: 20 });
    expect(await counters.get('lookups', '2026-04-30')).toBe(0);
  });

  it('reserves up to a limit and never past it, also from two instances at once', async () => {
    const a = await t.openStore();
    const b = await t.openStore({ schema: a.schema });
    const day = '2026-05-03';
    const reserved = await Promise.all(
      Array.from({ length: 24 }, (_, i) => (i % 2 ? a : b).counters.reserve('lookups', 5, day)),
    );
    expect(reserved.filter((r) => r !== undefined).sort()).toEqual([1, 2, 3, 4, 5]);
    expect(reserved.filter((r) => r === undefined)).toHaveLength(19);
    expect(await a.counters.get('lookups', day)).toBe(5);
    // A higher limit (work a person waits for goes on to the hard cap) continues from there.
    expect(await a.counters.reserve('lookups', 6, day)).toBe(6);
    expect(await a.counters.reserve('lookups', 0, '2026-05-04')).toBeUndefined();
    expect(await a.counters.get('lookups', '2026-05-04')).toBe(0);
  });

  it('lets exactly one of two instances run a cron tick', async () => {
    const a = await t.openStore();
    const b = await t.openStore({ schema: a.schema });
    const key = 'refresh:2026-05-01T03:00:00.000Z';
    const votes = await Promise.all([
      a.cron.shouldRun(key, 60_000),
      b.cron.shouldRun(key, 60_000),
      a.cron.shouldRun(key, 60_000),
    ]);
    expect(votes.filter(Boolean)).toHaveLength(1);
    const askers = [a.cron.owner, b.cron.owner, a.cron.owner];
    expect(await a.cron.claimant(key)).toBe(askers[votes.indexOf(true)]);
    expect(await b.cron.shouldRun('refresh:2026-05-02T03:00:00.000Z', 60_000)).toBe(true);
  });

  it('coordinates real node-cron tasks: each tick runs once across instances', async () => {
    const a = await t.openStore();
    const b = await t.openStore({ schema: a.schema });
    const runs: string[] = [];
    const coordinators = [
      new PostgresRunCoordinator(a.db, a.schema, 'a'),
      new PostgresRunCoordinator(b.db, b.schema, 'b'),
    ];
    const tasks = coordinators.map((coordinator) =>
      cron.schedule(
        '* * * * * *',
        (ctx) => {
          runs.push(ctx.date.toISOString());
        },
        { name: 'tick', distributed: true, runCoordinator: coordinator },
      ),
    );
    await new Promise((r) => setTimeout(r, 3200));
    await Promise.all(tasks.map(async (task) => task.destroy()));
    expect(runs.length).toBeGreaterThanOrEqual(2);
    expect(new Set(runs).size).toBe(runs.length);
  });
});
