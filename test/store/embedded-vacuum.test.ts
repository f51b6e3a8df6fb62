/**
 * The embedded database's autovacuum, on PGlite (where the service runs it: PGlite has no autovacuum of
 * its own) and on a Postgres server (the same SQL): a table whose updates left dead rows past
 * autovacuum's threshold is vacuumed, its dead rows gone; a table changed a little is left alone.
 */
import { describe, expect, it } from 'vitest';
import { EmbeddedVacuum, needsVacuum } from '../../src/store/embedded-vacuum.js';
import type { Store } from '../../src/store/store.js';
import { describeEachBackend } from '../support/db.js';

/** Runs `sql` and has this session's table statistics flushed when it ends, for the other sessions to read. */
async function changed(store: Store, sql: string): Promise<void> {
  await store.db.transaction(async (tx) => {
    await tx.exec(sql);
    await tx.query('SELECT pg_stat_force_next_flush()');
  });
}

async function tableStats(store: Store, table: string): Promise<{ dead: number; vacuums: number }> {
  const { rows } = await store.db.query<{ dead: string; vacuums: string }>(
    `SELECT n_dead_tup AS dead, vacuum_count AS vacuums FROM pg_stat_user_tables
      WHERE schemaname = $1 AND relname = $2`,
    [store.schema, table],
  );
  return { dead: Number(rows[0]?.dead ?? -1), vacuums: Number(rows[0]?.vacuums ?? -1) };
}

/** A table `churn` of `rows` rows in the store's schema; returns the schema's quoted name. */
async function churnTable(store: Store, rows: number, then = ''): Promise<string> {
  const s = `"${store.schema}"`;
  await changed(
    store,
    `CREATE TABLE ${s}.churn (id int PRIMARY KEY, n int NOT NULL);
     INSERT INTO ${s}.churn SELECT g, 0 FROM generate_series(1, ${rows}) g;
     ${then}`,
  );
  return s;
}

/** Passes until `done` holds (a server's statistics reach other sessions within moments). */
async function passUntil(vacuum: EmbeddedVacuum, done: (vacuumed: string[]) => boolean) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const result = await vacuum.pass();
    if (done(result) || Date.now() > deadline) return result;
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe("autovacuum's rule", () => {
  it('vacuums a table past 50 dead rows plus a fifth of its live ones', () => {
    expect(needsVacuum({ table: 't', live: 1_000, dead: 251 })).toBe(true);
    expect(needsVacuum({ table: 't', live: 1_000, dead: 250 })).toBe(false);
    expect(needsVacuum({ table: 't', live: 0, dead: 51 })).toBe(true);
    expect(needsVacuum({ table: 't', live: 0, dead: 50 })).toBe(false);
  });
});

describeEachBackend('the embedded database vacuumed as autovacuum would', (t) => {
  it('vacuums the table its updates left full of dead rows and leaves the quiet ones', async () => {
    const store = await t.openStore();
    const s = await churnTable(store, 400);
    await changed(
      store,
      `CREATE TABLE ${s}.quiet (id int PRIMARY KEY);
       INSERT INTO ${s}.quiet SELECT g FROM generate_series(1, 20) g;`,
    );
    const vacuum = new EmbeddedVacuum(store.db, store.schema);
    expect(await vacuum.pass()).toEqual([]);
    for (let i = 0; i < 3; i++) await changed(store, `UPDATE ${s}.churn SET n = n + 1`);
    await changed(store, `UPDATE ${s}.quiet SET id = id WHERE id <= 5`);

    const done = await passUntil(vacuum, (vacuumed) => vacuumed.includes('churn'));
    expect(done).toContain('churn');
    expect(done).not.toContain('quiet');
    expect((await tableStats(store, 'churn')).vacuums).toBe(1);
    const quiet = await tableStats(store, 'quiet');
    expect(quiet.vacuums).toBe(0);
    expect(quiet.dead).toBeGreaterThan(0);
    // On PGlite, one session, the dead rows are gone, and nothing is left to do until the table changes
    // again. (On a shared server another session's snapshot may keep them a while longer, and the next
    // pass vacuums again, as autovacuum would; the vacuum ran all the same.)
    if (t.backend === 'pglite') {
      expect((await tableStats(store, 'churn')).dead).toBe(0);
      expect(await vacuum.pass()).not.toContain('churn');
    }
    await vacuum.stop();
  });

  it('runs on its own once started, until stopped', async () => {
    const store = await t.openStore();
    await churnTable(store, 300, `UPDATE "${store.schema}".churn SET n = 1;`);
    const errors: unknown[] = [];
    const vacuum = new EmbeddedVacuum(store.db, store.schema, { intervalMs: 50, onError: (e) => errors.push(e) });
    vacuum.start();
    const deadline = Date.now() + 15_000;
    while ((await tableStats(store, 'churn')).vacuums === 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    await vacuum.stop();
    expect((await tableStats(store, 'churn')).vacuums).toBeGreaterThanOrEqual(1);
    expect(errors).toEqual([]);
  });
});
