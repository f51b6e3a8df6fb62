import { expect, it } from 'vitest';
import { staleQuery } from '../../src/store/enrichment-state.js';
import { describeEachBackend, fillSyntheticState } from '../support/db.js';

const key = (recordId: string) => ({ connection: 'default', objectType: 'contact', recordId });
const day = 86_400_000;

describeEachBackend('enrichment state', (t) => {
  it('upserts many rows, keeps fields a later write leaves out and merges written values', async () => {
    const { state } = await t.openStore();
    const at = new Date('2026-01-01T00:00:00Z');
    expect(
      await state.upsertMany([
        {
          ...key('1'),
          status: 'enriched',
          partnerId: 'p-1',
          matchKey: 'email',
          market: 'de',
          lastEnrichedAt: at,
          nextRefreshAt: new Date(at.getTime() + 30 * day),
          dataHash: 'h1',
          lastWritten: { jobtitle: 'CTO', phone: '+49 1' },
        },
        { ...key('2'), status: 'no_match', matchKey: 'email' },
      ]),
    ).toBe(2);

    await state.upsertMany([
      { ...key('1'), status: 'failed', lastError: 'partner answered 503', lastWritten: { jobtitle: 'CEO' } },
    ]);
    const one = await state.get(key('1'));
    expect(one).toMatchObject({
      status: 'failed',
      partnerId: 'p-1',
      matchKey: 'email',
      market: 'de',
      dataHash: 'h1',
      lastError: 'partner answered 503',
      lastWritten: { jobtitle: 'CEO', phone: '+49 1' },
    });
    expect(one?.lastEnrichedAt?.toISOString()).toBe(at.toISOString());

    // An explicit null clears a field.
    await state.upsertMany([{ ...key('1'), status: 'enriched', nextRefreshAt: null, lastError: null }]);
    expect(await state.get(key('1'))).toMatchObject({ nextRefreshAt: null, lastError: null, partnerId: 'p-1' });

    expect(await state.get(key('nope'))).toBeUndefined();
    expect([...(await state.getMany('default', 'contact', ['1', '2', '3'])).keys()].sort()).toEqual(['1', '2']);
    expect(await state.countByStatus()).toEqual({ enriched: 1, no_match: 1, failed: 0, skipped: 0 });
    expect(await state.countByStatus({ objectType: 'company' })).toEqual({
      enriched: 0,
      no_match: 0,
      failed: 0,
      skipped: 0,
    });
  });

  it('refuses a status it does not know, naming the record and field', async () => {
    const { state } = await t.openStore();
    await expect(state.upsertMany([{ ...key('1'), status: 'done' as 'enriched' }])).rejects.toMatchObject({
      code: 'invalid_input',
      details: { field: 'status' },
    });
  });

  it('picks stale records oldest first, page by page, for one CRM object only', async () => {
    const { state } = await t.openStore();
    const now = new Date('2026-03-01T00:00:00Z');
    const rows = Array.from({ length: 25 }, (_, i) => ({
      ...key(`r${String(i).padStart(2, '0')}`),
      status: 'enriched' as const,
      // r00..r19 are due (oldest first by index), r20..r24 are not yet.
      nextRefreshAt: new Date(now.getTime() + (i < 20 ? -(20 - i) * 1000 : day)),
    }));
    await state.upsertMany(rows);
    await state.upsertMany([
      { connection: 'default', objectType: 'company', recordId: 'c1', status: 'enriched', nextRefreshAt: new Date(0) },
    ]);
    await state.upsertMany([{ ...key('never'), status: 'enriched', nextRefreshAt: null }]);

    const seen: string[] = [];
    let page = await state.pickStale({ connection: 'default', objectType: 'contact', limit: 8, now });
    seen.push(...page.records.map((r) => r.recordId));
    while (page.next) {
      page = await state.pickStale({ connection: 'default', objectType: 'contact', limit: 8, now, after: page.next });
      seen.push(...page.records.map((r) => r.recordId));
    }
    expect(seen).toEqual(rows.slice(0, 20).map((r) => r.recordId));
  });

  it('carries state from merged records to the survivor and moves their audit trail', async () => {
    const store = await t.openStore();
    const old = new Date('2026-01-01T00:00:00Z');
    const recent = new Date('2026-02-01T00:00:00Z');
    await store.state.upsertMany([
      {
        ...key('a'),
        status: 'enriched',
        partnerId: 'p-a',
        lastEnrichedAt: old,
        lastWritten: { jobtitle: 'CTO', city: 'Berlin' },
      },
      { ...key('b'), status: 'enriched', partnerId: 'p-b', lastEnrichedAt: recent, lastWritten: { jobtitle: 'CEO' } },
    ]);
    await store.audit.record([
      { ...key('b'), property: 'jobtitle', oldValue: null, newValue: 'CEO', rule: 'fill_empty' },
    ]);

    // Survivor "s" has no state of its own: it takes the most recently enriched one.
    const merged = await store.state.merge('default', 'contact', 's', ['a', 'b']);
    expect(merged).toMatchObject({ recordId: 's', partnerId: 'p-b', lastWritten: { jobtitle: 'CEO', city: 'Berlin' } });
    expect(await store.state.get(key('a'))).toBeUndefined();
    expect(await store.state.get(key('b'))).toBeUndefined();
    expect((await store.audit.forRecord(key('s'))).map((e) => e.newValue)).toEqual(['CEO']);
    expect(await store.audit.forRecord(key('b'))).toEqual([]);
  });

  it('finds stale records with a range scan of the due index, not a table scan', async () => {
    const store = await t.openStore();
    // A million rows on the server as the issue asks; PGlite (WASM) gets a smaller table with the same plan.
    const rows = t.backend === 'pg' ? 1_000_000 : 50_000;
    await fillSyntheticState(store.db, store.schema, rows);
    const table = `"${store.schema}".enrichment_state`;
    const now = new Date().toISOString();
    for (const [sql, params] of [
      [staleQuery(table, false), ['default', 'contact', now, 500, '']],
      [
        staleQuery(table, true),
        ['default', 'contact', now, 500, new Date(Date.now() - 200 * day).toISOString(), '5', ''],
      ],
    ] as const) {
      const { rows: plan } = await store.db.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, [...params]);
      const text = plan.map((r) => r['QUERY PLAN']).join('\n');
      expect(text).toMatch(/Index (Only )?Scan using enrichment_state_due/);
      expect(text).not.toMatch(/Seq Scan|Sort/);
    }
    const page = await store.state.pickStale({ connection: 'default', objectType: 'contact', limit: 500 });
    expect(page.records).toHaveLength(500);
    expect(page.next).toBeDefined();
    // Filling a million rows on the server takes most of the default 30 s on a busy machine.
  }, 90_000);
});

describeEachBackend('record view', (t) => {
  it("reads a record's state and audit rows together, from one snapshot", async () => {
    const store = await t.openStore();
    const key = { connection: 'default', objectType: 'contact', recordId: 'view-1' };
    expect(await store.recordView(key, 10)).toEqual({ state: undefined, audit: [] });
    await store.db.transaction(async (tx) => {
      await store.state.upsertMany([{ ...key, status: 'no_match' }], tx);
      await store.audit.record(
        [{ ...key, outcome: 'no_match', reason: 'the partner has no record for work_email' }],
        tx,
      );
    });
    const view = await store.recordView(key, 10);
    expect(view.state?.status).toBe('no_match');
    expect(view.audit.map((a) => a.outcome)).toEqual(['no_match']);
  });
});
