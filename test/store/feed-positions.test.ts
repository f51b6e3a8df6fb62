/**
 * How far each event feed has been read (migration 015), on PGlite and on the Postgres server: kept per
 * connection and account, so a restart reads on from it and another portal behind the connection has
 * its own; cleared when the feed has dropped it.
 */
import { expect, it } from 'vitest';
import { describeEachBackend } from '../support/db.js';

describeEachBackend('event feed positions', (t) => {
  it('keeps the position per connection and account across a restart, and forgets it when cleared', async () => {
    const store = await t.openStore();
    await store.accounts.bind('hubspot', 'hubspot', '62515');
    expect(await store.feeds.get('hubspot', 'hubspot-journal')).toBeUndefined();
    await store.feeds.set('hubspot', 'hubspot-journal', 'offset-1');
    await store.feeds.set('hubspot', 'hubspot-journal', 'offset-2');
    await store.feeds.set('salesforce', 'hubspot-journal', 'elsewhere');

    // A restart on the same portal reads on from where the last one stopped.
    const restarted = await t.openStore({ schema: store.schema });
    await restarted.accounts.bind('hubspot', 'hubspot', '62515');
    expect(await restarted.feeds.get('hubspot', 'hubspot-journal')).toBe('offset-2');

    // Another portal behind the same connection starts from its own position.
    const other = await t.openStore({ schema: store.schema });
    await other.accounts.bind('hubspot', 'hubspot', '7654321');
    expect(await other.feeds.get('hubspot', 'hubspot-journal')).toBeUndefined();
    await other.feeds.set('hubspot', 'hubspot-journal', 'other-portal-offset');

    const back = await t.openStore({ schema: store.schema });
    await back.accounts.bind('hubspot', 'hubspot', '62515');
    expect(await back.feeds.get('hubspot', 'hubspot-journal')).toBe('offset-2');
    await back.feeds.clear('hubspot', 'hubspot-journal');
    expect(await back.feeds.get('hubspot', 'hubspot-journal')).toBeUndefined();
    expect(await other.feeds.get('hubspot', 'hubspot-journal')).toBe('other-portal-offset');
  });
});
