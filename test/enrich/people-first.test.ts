/**
 * People first: bulk calls that can wait are held for a lull in people's records, never past their
 * hold; a lane's ledger says when a person's record comes in hand and when it is written.
 */
import { describe, expect, it } from 'vitest';
import { Ledger } from '../../src/enrich/lane/ledger.js';
import { PeopleFirst } from '../../src/enrich/lane/people-first.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Milliseconds until `promise` settles. */
async function timed(promise: Promise<unknown>): Promise<number> {
  const started = performance.now();
  await promise;
  return performance.now() - started;
}

describe('people first', () => {
  it('lets bulk work go at once when no person has been in hand', async () => {
    const people = new PeopleFirst(50);
    expect(await timed(people.lull(5_000))).toBeLessThan(30);
  });

  it('holds bulk work while a person is in hand, then for the lull after they leave', async () => {
    const people = new PeopleFirst(100);
    people.arrive();
    let released = false;
    const waited = timed(people.lull(5_000).then(() => (released = true)));
    await sleep(150);
    expect(released).toBe(false);
    people.leave();
    await sleep(50);
    expect(released).toBe(false);
    const ms = await waited;
    expect(ms).toBeGreaterThanOrEqual(240);
    expect(ms).toBeLessThan(1_000);
  });

  it('waits for the lull again when a person arrives during it', async () => {
    const people = new PeopleFirst(100);
    people.arrive();
    people.leave();
    const waited = timed(people.lull(5_000));
    await sleep(60);
    people.arrive();
    await sleep(100);
    people.leave();
    expect(await waited).toBeGreaterThanOrEqual(250);
  });

  it('never holds bulk work past its hold while people keep coming', async () => {
    const people = new PeopleFirst(100);
    people.arrive();
    const ms = await timed(people.lull(300));
    expect(ms).toBeGreaterThanOrEqual(290);
    expect(ms).toBeLessThan(1_000);
  });

  it('hears from a ledger when a person is taken in hand and when their record is written', async () => {
    const seen: string[] = [];
    const ledger = new Ledger({
      lowWater: 10,
      waitingAllowance: 100,
      people: { arrive: () => seen.push('arrive'), leave: () => seen.push('leave') },
    });
    ledger.hold(['person', 'bulk'], new Set(['person']));
    expect(seen).toEqual(['arrive']);
    expect(ledger.peopleWaiting).toBe(1);
    // Moving through the phases before the write is still in hand.
    ledger.move('person', 'planning', true);
    ledger.move('person', 'waiting');
    ledger.move('bulk', 'planning', false);
    expect(seen).toEqual(['arrive']);
    ledger.move('person', 'written');
    expect(seen).toEqual(['arrive', 'leave']);
    expect(ledger.peopleWaiting).toBe(0);
    // A written record waiting for its link weighs on claiming no more than one waiting for its write,
    // nor one waiting for its employer: only records being read or looked up count.
    expect(ledger.claimWeight()).toBe(1);
    ledger.move('bulk', 'linking');
    expect(ledger.claimWeight()).toBe(0);
    ledger.move('bulk', 'planning');
    ledger.release(['person', 'bulk']);
    expect(seen).toEqual(['arrive', 'leave']);
    // A person's record let go before its write (failed, put back) leaves too.
    ledger.hold(['other'], new Set(['other']));
    ledger.release(['other']);
    expect(seen).toEqual(['arrive', 'leave', 'arrive', 'leave']);
  });
});
