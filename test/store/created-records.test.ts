/**
 * The service's own creations: a creation is marked under way before its call, and the mark gives way to
 * the created ids in one step, so whoever looks sees the mark or the ids. A mark counts for a while only.
 */
import { expect, it } from 'vitest';
import { describeEachBackend } from '../support/db.js';

describeEachBackend('records the service created', (t) => {
  it('shows a creation as under way from its mark until its ids are kept', async () => {
    const store = await t.openStore();
    const { created } = store;
    expect(await created.underWay('hubspot', 'company', 60_000)).toBe(false);

    const mark = await created.begin('hubspot', 'company');
    expect(await created.underWay('hubspot', 'company', 60_000)).toBe(true);
    // Another object type, or another connection, is not under way.
    expect(await created.underWay('hubspot', 'contact', 60_000)).toBe(false);
    expect(await created.underWay('salesforce', 'company', 60_000)).toBe(false);
    expect(await created.has('hubspot', 'company', ['c-1', 'c-2'])).toEqual(new Set());

    await created.add('hubspot', 'company', ['c-1', 'c-2'], mark);
    expect(await created.underWay('hubspot', 'company', 60_000)).toBe(false);
    expect(await created.has('hubspot', 'company', ['c-1', 'c-2', 'c-3'])).toEqual(new Set(['c-1', 'c-2']));
  });

  it('lifts the mark of a failed creation, and stops counting a mark older than asked', async () => {
    const store = await t.openStore();
    const { created } = store;
    const failed = await created.begin('hubspot', 'company');
    await created.abandon(failed);
    expect(await created.underWay('hubspot', 'company', 60_000)).toBe(false);

    await created.begin('hubspot', 'company');
    await new Promise((r) => setTimeout(r, 50));
    expect(await created.underWay('hubspot', 'company', 60_000)).toBe(true);
    expect(await created.underWay('hubspot', 'company', 10)).toBe(false);
  });
});
