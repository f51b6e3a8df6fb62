import { PGlite } from '@electric-sql/pglite';
import { afterAll, describe, expect, it } from 'vitest';
import { forPerson } from '../../src/core/person-waiting.js';
import { YieldingPGlite } from '../../src/store/yielding-pglite.js';
import { freshPglite, freshPgliteOptions } from '../support/pglite.js';

/**
 * Queues `count` statements of a few milliseconds each at once, and reports how many had finished when
 * a timer set at the same moment fired: the other work of the process (a webhook, a limiter's timer, a
 * CRM's answer) waits as long as that timer does.
 */
async function finishedWhenATimerFires(db: PGlite, count: number) {
  const finished: number[] = [];
  const statements = Array.from({ length: count }, (_, i) =>
    db.query<{ n: number }>('SELECT $1::int AS n FROM generate_series(1, 20000) LIMIT 1', [i]).then((r) => {
      finished.push(r.rows[0]!.n);
    }),
  );
  const atTimer = await new Promise<number>((resolve) => setTimeout(() => resolve(finished.length), 0));
  await Promise.all(statements);
  return { atTimer, finished };
}

describe('YieldingPGlite', () => {
  const opened: PGlite[] = [];
  afterAll(async () => {
    for (const db of opened) await db.close();
  });

  it('lets a timer run while a backlog of statements waits, where a plain PGlite runs them all first', async () => {
    const plain = await freshPglite();
    const yielding = await YieldingPGlite.open(undefined, await freshPgliteOptions());
    opened.push(plain, yielding);

    const before = await finishedWhenATimerFires(plain, 200);
    expect(before.atTimer).toBe(200);

    const after = await finishedWhenATimerFires(yielding, 200);
    expect(after.atTimer).toBeLessThan(200);
    // The statements keep their order.
    expect(after.finished).toEqual(Array.from({ length: 200 }, (_, i) => i));
  });

  it('keeps a transaction whole: a statement queued meanwhile runs after its commit', async () => {
    const db = await YieldingPGlite.open(undefined, await freshPgliteOptions());
    opened.push(db);
    await db.exec('CREATE TABLE t (n int)');
    const order: string[] = [];
    const tx = db.transaction(async (t) => {
      for (let i = 0; i < 50; i++) await t.query('INSERT INTO t SELECT $1 FROM generate_series(1, 2000) LIMIT 1', [i]);
      order.push('committed');
    });
    const outside = db.query<{ c: number }>('SELECT count(*)::int AS c FROM t').then((r) => {
      order.push(`counted ${r.rows[0]!.c}`);
    });
    await Promise.all([tx, outside]);
    expect(order).toEqual(['committed', 'counted 50']);
  });

  it("runs a person's statement ahead of bulk statements queued before it", async () => {
    const db = await YieldingPGlite.open(undefined, await freshPgliteOptions());
    opened.push(db);
    const order: string[] = [];
    const slow = 'SELECT count(*) FROM generate_series(1, 20000)';
    const bulk = Array.from({ length: 50 }, (_, i) => db.query(slow).then(() => void order.push(`bulk ${i}`)));
    const person = forPerson(true, () => db.query(slow).then(() => void order.push('person')));
    await Promise.all([...bulk, person]);
    // The first bulk statement had the session already; the person's comes next.
    expect(order.indexOf('person')).toBe(1);
    expect(order.filter((o) => o !== 'person')).toEqual(Array.from({ length: 50 }, (_, i) => `bulk ${i}`));
  });
});
