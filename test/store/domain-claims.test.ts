import { expect, it } from 'vitest';
import { describeEachBackend } from '../support/db.js';

describeEachBackend('company claims', (t) => {
  it(
    'gives each domain to one holder, shows the others its company once created, ' +
      'and lets a stale claim be taken over',
    async () => {
      const store = await t.openStore();
      const claims = store.companies;
      const first = await claims.claim('default', ['acme.com', 'globex.com', 'acme.com'], 'a', 60_000);
      expect(Object.fromEntries(first)).toEqual({ 'acme.com': { kind: 'mine' }, 'globex.com': { kind: 'mine' } });

      // Concurrent claims on one domain: exactly one wins.
      const racers = await Promise.all(
        ['b', 'c', 'd', 'e'].map((h) => claims.claim('default', ['initech.com'], h, 60_000)),
      );
      expect(racers.filter((r) => r.get('initech.com')?.kind === 'mine')).toHaveLength(1);

      expect((await claims.claim('default', ['acme.com'], 'b', 60_000)).get('acme.com')).toEqual({ kind: 'held' });
      await claims.recordCompany('default', 'acme.com', 'a', '901');
      expect((await claims.claim('default', ['acme.com'], 'b', 0)).get('acme.com')).toEqual({
        kind: 'created',
        companyId: '901',
      });
      expect(Object.fromEntries(await claims.created('default', ['acme.com', 'globex.com']))).toEqual({
        'acme.com': '901',
      });
      // Another connection has its own claims.
      expect((await claims.claim('eu', ['acme.com'], 'b', 60_000)).get('acme.com')).toEqual({ kind: 'mine' });

      // A holder that died leaves a claim without a company: after the stale time another may take it.
      expect((await claims.claim('default', ['globex.com'], 'b', 60_000)).get('globex.com')).toEqual({ kind: 'held' });
      expect((await claims.claim('default', ['globex.com'], 'b', 0)).get('globex.com')).toEqual({ kind: 'mine' });
      // Only the holder's settle counts.
      await claims.recordCompany('default', 'globex.com', 'a', 'wrong');
      expect((await claims.created('default', ['globex.com'])).size).toBe(0);
      await claims.release('default', 'globex.com', 'b');
      expect((await claims.claim('default', ['globex.com'], 'c', 60_000)).get('globex.com')).toEqual({ kind: 'mine' });
    },
  );

  it('keeps a claim its holder touches from going stale, and only the holder can touch it', async () => {
    const store = await t.openStore();
    const claims = store.companies;
    expect((await claims.claim('default', ['touched.example'], 'a', 60_000)).get('touched.example')).toEqual({
      kind: 'mine',
    });
    await new Promise((r) => setTimeout(r, 300));
    // Another holder's touch changes nothing: the claim is 300 ms old, older than a 200 ms stale time.
    await claims.touch('default', ['touched.example'], 'b');
    expect((await claims.claim('default', ['touched.example'], 'b', 200)).get('touched.example')).toEqual({
      kind: 'mine',
    });
    // b holds it now; its touches keep it from c as long as they come within the stale time.
    await new Promise((r) => setTimeout(r, 300));
    await claims.touch('default', ['touched.example'], 'b');
    expect((await claims.claim('default', ['touched.example'], 'c', 200)).get('touched.example')).toEqual({
      kind: 'held',
    });
  });

  it('keeps the latest report of a domain held by several companies', async () => {
    const store = await t.openStore();
    await store.companies.reportDuplicate('default', 'acme.com', ['1', '2']);
    await store.companies.reportDuplicate('default', 'acme.com', ['1', '2', '3']);
    const dups = await store.companies.duplicates();
    expect(dups.map((d) => [d.domain, d.companyIds])).toEqual([['acme.com', ['1', '2', '3']]]);
  });
});
