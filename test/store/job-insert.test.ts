/**
 * The group commit writes pg-boss's job rows with a statement of its own (src/store/job-insert.ts). A
 * job stored that way must be the row pg-boss's own insert would have stored: every column is compared,
 * so an upgrade of pg-boss that adds or fills a column differently fails here.
 */
import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { PgBoss, fromPglite } from 'pg-boss';
import { insertJobs } from '../../src/store/job-insert.js';
import { describeEachBackend } from '../support/db.js';

const QUEUE = 'enrich.hubspot.contact';

describeEachBackend('job insert', (t) => {
  it('stores the row pg-boss would store, for a job due now and one due later', async () => {
    const store = await t.openStore();
    await store.queue.ensureQueue(QUEUE);
    const boss = new PgBoss({
      db:
        t.backend === 'pglite'
          ? fromPglite(t.pglite())
          : { executeSql: (text: string, values?: unknown[]) => store.db.query(text, values) },
      schema: store.schema,
      backend: t.backend === 'pglite' ? 'pglite' : 'postgres',
      supervise: false,
      schedule: false,
      migrate: false,
    });
    await boss.start();
    try {
      const later = new Date(Date.now() + 3_600_000);
      const data = { connection: 'c1', objectType: 'contact', recordId: '42', reason: 'created' };
      const ids = { ours: [randomUUID(), randomUUID()], boss: [randomUUID(), randomUUID()] };
      const inserted = await insertJobs(store.db, store.schema, QUEUE, [
        { id: ids.ours[0]!, keyHash: 'a'.repeat(64), data, priority: 10 },
        { id: ids.ours[1]!, data, priority: 0, startAfter: later },
      ]);
      expect([...inserted].sort()).toEqual([...ids.ours].sort());
      await boss.insert(QUEUE, [
        { id: ids.boss[0]!, data, priority: 10 },
        { id: ids.boss[1]!, data, priority: 0, startAfter: later },
      ]);

      const { rows } = await store.db.query<Record<string, unknown>>(
        `SELECT * FROM "${store.schema}".job WHERE name = $1`,
        [QUEUE],
      );
      const byId = new Map(rows.map((r) => [String(r.id), r]));
      const columns = Object.keys(rows[0]!);
      expect(columns.length).toBeGreaterThan(20);
      for (const i of [0, 1]) {
        const ours = byId.get(ids.ours[i]!)!;
        const theirs = byId.get(ids.boss[i]!)!;
        // Timestamps read from the clock differ by the time between the two inserts; the later job's
        // start and retention follow from the time it was given, so they must match exactly.
        const fromClock = i === 0 ? ['created_on', 'start_after', 'keep_until'] : ['created_on'];
        for (const column of columns) {
          if (column === 'id') continue;
          const a = ours[column];
          const b = theirs[column];
          if (fromClock.includes(column)) {
            expect(a, column).toBeInstanceOf(Date);
            expect(Math.abs((a as Date).getTime() - (b as Date).getTime()), column).toBeLessThan(60_000);
          } else {
            expect(a, column).toEqual(b);
          }
        }
      }
    } finally {
      await boss.stop({ graceful: false, close: false });
    }
  });

  it('stores a key with its job, and neither for a key seen before', async () => {
    const store = await t.openStore();
    await store.queue.ensureQueue(QUEUE);
    const data = { connection: 'c1', objectType: 'contact', recordId: '7' };
    const first = await insertJobs(store.db, store.schema, QUEUE, [
      { id: randomUUID(), keyHash: 'b'.repeat(64), data, priority: 10 },
    ]);
    const again = await insertJobs(store.db, store.schema, QUEUE, [
      { id: randomUUID(), keyHash: 'b'.repeat(64), data, priority: 10 },
      { id: randomUUID(), keyHash: 'c'.repeat(64), data, priority: 10 },
    ]);
    expect(first.size).toBe(1);
    expect(again.size).toBe(1);
    const { rows } = await store.db.query<{ jobs: number; keys: number; record: string }>(
      `SELECT (SELECT count(*)::int FROM "${store.schema}".job WHERE name = $1) AS jobs,
              (SELECT count(*)::int FROM "${store.schema}".received_event) AS keys,
              (SELECT min(record_id) FROM "${store.schema}".received_event) AS record`,
      [QUEUE],
    );
    expect(rows[0]).toEqual({ jobs: 2, keys: 2, record: '7' });
  });

  it('stores nothing for a queue pg-boss does not have, so no key is kept without its job', async () => {
    const store = await t.openStore();
    await store.queue.ensureQueue(QUEUE);
    const inserted = await insertJobs(store.db, store.schema, 'no.such.queue', [
      {
        id: randomUUID(),
        keyHash: 'd'.repeat(64),
        data: { connection: 'c1', objectType: 'contact', recordId: '1' },
        priority: 10,
      },
    ]);
    expect(inserted.size).toBe(0);
    const { rows } = await store.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM "${store.schema}".received_event`,
    );
    expect(rows[0]!.n).toBe(0);
  });
});
