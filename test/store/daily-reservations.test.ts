import { expect, it } from 'vitest';
import { utcDay } from '../../src/store/daily-counters.js';
import { migrate } from '../../src/store/migrate.js';
import { describeEachBackend } from '../support/db.js';

describeEachBackend('daily reservations', (t) => {
  it('lets twenty callers at once, on two instances, take no more than the limit between them', async () => {
    const first = await t.openStore();
    const second = await t.openStore({ schema: first.schema });
    // Each asks for 1 to 3; together they want far more than the 17 the limit leaves after what is spent.
    await first.counters.increment('things', 3);
    const wanted = Array.from({ length: 20 }, (_, i) => 1 + (i % 3));
    const held = await Promise.all(
      wanted.map((n, i) => (i % 2 ? second : first).reservations.reserve('things', n, 20)),
    );
    expect(held.reduce((sum, r) => sum + r.granted, 0)).toBe(17);
    for (const [i, r] of held.entries()) expect(r.granted).toBeLessThanOrEqual(wanted[i]!);
    expect(await first.counters.get('things')).toBe(20);
    // Nothing is left for a latecomer, and the counter's own one-at-a-time reserve agrees.
    expect((await second.reservations.reserve('things', 5, 20)).granted).toBe(0);
    expect(await first.counters.reserve('things', 20)).toBeUndefined();
    expect(await first.counters.get('things')).toBe(20);
  });

  it('grants part of what is asked at the edge of the limit, and what is not spent goes back', async () => {
    const store = await t.openStore();
    const { reservations, counters } = store;
    expect((await reservations.reserve('credits', 4, 0)).granted).toBe(0);
    const a = await reservations.reserve('credits', 4, 6);
    const b = await reservations.reserve('credits', 4, 6);
    expect([a.granted, b.granted]).toEqual([4, 2]);
    expect(await counters.get('credits')).toBe(6);

    // `a` spends 3 (one taken and put back: a request the partner did not serve) and gives back 1.
    for (let i = 0; i < 4; i++) expect(a.take()).toBe(true);
    expect(a.take()).toBe(false);
    a.putBack();
    expect(a.spent).toBe(3);
    await a.close();
    expect(await counters.get('credits')).toBe(5);
    await a.close();
    expect(await counters.get('credits')).toBe(5);
    expect(a.take()).toBe(false);

    // `b` spends nothing: all of it returns, and a later caller gets it.
    await b.close();
    expect(await counters.get('credits')).toBe(3);
    expect((await reservations.reserve('credits', 10, 6)).granted).toBe(3);
  });

  it('gives back to the day the reservation was made on, not the day it ends', async () => {
    const store = await t.openStore();
    const yesterday = utcDay(new Date(Date.now() - 86_400_000));
    const r = await store.reservations.reserve('records', 5, 5, yesterday);
    r.take();
    await store.counters.increment('records', 2);
    await r.close();
    expect(await store.counters.range('records', yesterday, utcDay())).toEqual({ [yesterday]: 1, [utcDay()]: 2 });
  });

  it("counts today's records created before the upgrade against the daily discovery limit", async () => {
    const store = await t.openStore();
    const table = (name: string) => `"${store.schema}".${name}`;
    // The schema as it was before migration 009, with two records discovery created today and one yesterday.
    await store.db.query(`DELETE FROM ${table('schema_migration')} WHERE version = '009_daily_reservations'`);
    await store.db.query(`ALTER TABLE ${table('daily_counter')} DROP COLUMN last_grant`);
    await store.db.query(
      `INSERT INTO ${table('discovered_person')}
         (connection, person_id, object_type, company_id, claimed_by, action, settled_at)
       VALUES ('hubspot', 'a', 'contact', '1', 'x', 'created', now()),
              ('hubspot', 'b', 'contact', '1', 'x', 'created', now()),
              ('hubspot', 'c', 'contact', '1', 'x', 'linked', now()),
              ('hubspot', 'd', 'contact', '1', 'x', 'created', now() - interval '2 days')`,
    );
    expect((await migrate(store.db, store.schema)).applied).toEqual(['009_daily_reservations']);
    expect(await store.counters.get('discovery_created')).toBe(2);
    expect((await store.reservations.reserve('discovery_created', 5, 3)).granted).toBe(1);
  });
});
