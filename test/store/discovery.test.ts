import { expect, it } from 'vitest';
import { describeEachBackend } from '../support/db.js';

describeEachBackend('discovery store', (t) => {
  it('gives each person to one run, remembers what was done, and lets a stale claim be taken over', async () => {
    const store = await t.openStore();
    const d = store.discovery;
    // Concurrent runs on one person: exactly one gets it.
    const racers = await Promise.all(
      ['a', 'b', 'c', 'd'].map((h) => d.claim('hubspot', 'pe_1', 'contact', '900', h, 60_000)),
    );
    expect(racers.filter((r) => r.kind === 'mine')).toHaveLength(1);
    const holder = ['a', 'b', 'c', 'd'][racers.findIndex((r) => r.kind === 'mine')]!;
    expect(await d.claim('hubspot', 'pe_1', 'contact', '900', 'x', 60_000)).toEqual({ kind: 'held' });

    // Only the holder settles; then every run sees what was done.
    await d.recordAction('hubspot', 'pe_1', 'someone-else', 'created', '1', null);
    expect((await d.done('hubspot', ['pe_1'])).size).toBe(0);
    await d.recordAction('hubspot', 'pe_1', holder, 'created', '501', 'managers');
    expect(await d.claim('hubspot', 'pe_1', 'contact', '900', 'x', 0)).toEqual({
      kind: 'done',
      action: 'created',
      recordId: '501',
    });
    expect(Object.fromEntries(await d.done('hubspot', ['pe_1', 'pe_2']))).toEqual({
      pe_1: { action: 'created', recordId: '501' },
    });
    // Another connection keeps its own.
    expect(await d.claim('salesforce', 'pe_1', 'Contact', '001', 'x', 60_000)).toEqual({ kind: 'mine' });

    // A run that died leaves an unsettled claim: after the stale time another run may take it; a release frees it.
    expect(await d.claim('hubspot', 'pe_2', 'contact', '900', 'a', 60_000)).toEqual({ kind: 'mine' });
    expect(await d.claim('hubspot', 'pe_2', 'contact', '900', 'b', 60_000)).toEqual({ kind: 'held' });
    expect(await d.claim('hubspot', 'pe_2', 'contact', '900', 'b', 0)).toEqual({ kind: 'mine' });
    await d.release('hubspot', 'pe_2', 'b');
    expect(await d.claim('hubspot', 'pe_2', 'contact', '900', 'c', 60_000)).toEqual({ kind: 'mine' });
    await d.recordAction('hubspot', 'pe_2', 'c', 'linked', '777', null);
  });

  it('saves, replaces, lists and deletes personas', async () => {
    const store = await t.openStore();
    const d = store.discovery;
    expect(await d.savePersona('heads of sales', { seniority: ['4'], department: ['2'] }, 'who signs')).toBe(true);
    expect(await d.savePersona('heads of sales', { seniority: ['3', '4'], department: ['2'] }, null)).toBe(false);
    expect(await d.savePersona('engineers', { department: ['5'] }, null)).toBe(true);
    expect((await d.personas()).map((p) => [p.name, p.filters])).toEqual([
      ['engineers', { department: ['5'] }],
      ['heads of sales', { seniority: ['3', '4'], department: ['2'] }],
    ]);
    expect((await d.persona('heads of sales'))?.description).toBeNull();
    expect(await d.deletePersona('engineers')).toBe(true);
    expect(await d.deletePersona('engineers')).toBe(false);
    expect(await d.persona('engineers')).toBeUndefined();
  });
});
