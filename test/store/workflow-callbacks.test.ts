/**
 * Blocked workflow steps kept until their callback is sent, on PGlite and on a Postgres server: the same
 * step twice is one row, a leased step is not handed out again until its lease ends or it is put back,
 * failed sends count and say why, finished steps are not handed out and are pruned; and the queue's
 * lookup of jobs says where each stands and what queued it (what the entry points wait on).
 */
import { expect, it } from 'vitest';
import { describeEachBackend } from '../support/db.js';

const step = (callbackId: string) => ({
  callbackId,
  connection: 'hubspot',
  objectType: 'contact',
  recordId: '1001',
  sinceAuditId: 7,
  jobId: null,
});

describeEachBackend('workflow callbacks', (t) => {
  it('keeps a step once, leases it to one taker at a time, and hands it out again when put back', async () => {
    const store = await t.openStore();
    const callbacks = store.workflowCallbacks;
    await callbacks.add(step('cb-1'));
    await callbacks.add({ ...step('cb-1'), recordId: 'other' }); // HubSpot resending the step
    await callbacks.add(step('cb-2'));

    const first = await callbacks.lease(10, 60_000);
    expect(first.map((s) => s.callbackId).sort()).toEqual(['cb-1', 'cb-2']);
    expect(first.find((s) => s.callbackId === 'cb-1')).toMatchObject({
      recordId: '1001',
      sinceAuditId: 7,
      jobId: null,
      outputs: null,
      attempts: 0,
    });
    expect(await callbacks.lease(10, 60_000)).toEqual([]);

    await callbacks.setOutputs('cb-1', { outcome: 'enriched', fields_written: 3, matched: true });
    await callbacks.later('cb-1', 0, 'HubSpot answered 502');
    const again = await callbacks.lease(10, 60_000);
    expect(again.map((s) => s.callbackId)).toEqual(['cb-1']);
    expect(again[0]).toMatchObject({ attempts: 1, outputs: { outcome: 'enriched', fields_written: 3, matched: true } });
    expect((await callbacks.get('cb-1'))?.lastError).toBe('HubSpot answered 502');

    // A look that finds the run unsettled puts it back without counting an attempt.
    await callbacks.later('cb-1', 0);
    expect((await callbacks.lease(10, 60_000))[0]?.attempts).toBe(1);
  });

  it('does not hand out finished steps, and prunes them after their time', async () => {
    const store = await t.openStore();
    const callbacks = store.workflowCallbacks;
    await callbacks.add(step('cb-done'));
    await callbacks.finish('cb-done');
    await callbacks.later('cb-done', 0);
    expect(await callbacks.lease(10, 60_000)).toEqual([]);
    expect((await callbacks.get('cb-done'))?.completedAt).toBeInstanceOf(Date);
    expect(await callbacks.prune(30)).toBe(0);
    await store.db.query(`UPDATE "${store.schema}".workflow_callback SET completed_at = now() - interval '31 days'`);
    expect(await callbacks.prune(30)).toBe(1);
    expect(await callbacks.get('cb-done')).toBeUndefined();
  });

  it("looks up jobs of a queue: each one's state and the reason it was queued for", async () => {
    const store = await t.openStore();
    const queue = 'enrich.hubspot.contact';
    const { ids } = await store.queue.enqueue(queue, [
      { data: { connection: 'hubspot', objectType: 'contact', recordId: '1', reason: 'workflow' } },
      { data: { connection: 'hubspot', objectType: 'contact', recordId: '2', reason: 'created' } },
    ]);
    const found = await store.queue.lookup(queue, [...ids, 'not-a-uuid', '00000000-0000-4000-8000-000000000000']);
    expect(found.size).toBe(2);
    expect(found.get(ids[0]!)).toEqual({ state: 'created', reason: 'workflow' });
    expect(found.get(ids[1]!)?.reason).toBe('created');
    const [claimed] = await store.queue.claim(queue, 1);
    await store.queue.complete(queue, [claimed!]);
    expect((await store.queue.lookup(queue, [claimed!.id])).get(claimed!.id)?.state).toBe('completed');
    expect((await store.queue.lookup('enrich.salesforce.contact', ids)).size).toBe(0);
  });
});
