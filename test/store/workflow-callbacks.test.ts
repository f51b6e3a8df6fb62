/**
 * Workflow steps by callback id, on PGlite and on a Postgres server: the same step twice is one row,
 * answered once (a later request finds the first's answer), only blocked steps are handed to the
 * callback sender; a leased step is not handed out again until its lease ends or it is put back, failed
 * sends count and say why, finished steps are not handed out and are pruned; and the queue's lookup of
 * jobs says where each stands and what queued it (what the entry points wait on).
 */
import { expect, it } from 'vitest';
import type { WorkflowCallbacks } from '../../src/store/workflow-callbacks.js';
import { describeEachBackend } from '../support/db.js';

const step = (callbackId: string) => ({
  callbackId,
  connection: 'hubspot',
  objectType: 'contact',
  recordId: '1001',
  sinceAuditId: 7,
});

/** A step asked for and answered BLOCK: due for its callback. */
async function blocked(callbacks: WorkflowCallbacks, entry: ReturnType<typeof step>): Promise<void> {
  await callbacks.claim(entry);
  await callbacks.conclude(entry.callbackId, 'pending');
}

const enriched = { outcome: 'enriched' as const, fieldsWritten: 2, matched: true };

describeEachBackend('workflow callbacks', (t) => {
  it('keeps a step once, leases it to one taker at a time, and hands it out again when put back', async () => {
    const store = await t.openStore();
    const callbacks = store.workflowCallbacks;
    await blocked(callbacks, step('cb-1'));
    await blocked(callbacks, { ...step('cb-1'), recordId: 'other' }); // HubSpot resending the step
    await blocked(callbacks, step('cb-2'));

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
    await blocked(callbacks, step('cb-done'));
    await callbacks.finish('cb-done');
    await callbacks.later('cb-done', 0);
    expect(await callbacks.lease(10, 60_000)).toEqual([]);
    expect((await callbacks.get('cb-done'))?.completedAt).toBeInstanceOf(Date);
    expect(await callbacks.prune(30)).toBe(0);
    await store.db.query(`UPDATE "${store.schema}".workflow_callback SET completed_at = now() - interval '31 days'`);
    expect(await callbacks.prune(30)).toBe(1);
    expect(await callbacks.get('cb-done')).toBeUndefined();
  });

  it('makes one row per callback id: the first claim is the first, a later one finds its job and answer', async () => {
    const store = await t.openStore();
    const callbacks = store.workflowCallbacks;
    expect(await callbacks.claim(step('cb-once'))).toEqual({
      first: true,
      sinceAuditId: 7,
      jobId: null,
      answer: undefined,
    });
    const jobId = '00000000-0000-4000-8000-000000000001';
    await callbacks.setJob('cb-once', jobId);
    // Sent again while the first still waits: the same run to wait on, nothing answered yet.
    expect(await callbacks.claim({ ...step('cb-once'), sinceAuditId: 99 })).toEqual({
      first: false,
      sinceAuditId: 7,
      jobId,
      answer: undefined,
    });
    // Answered in the response: no callback is owed, so the sender never sees it.
    expect(await callbacks.conclude('cb-once', enriched)).toEqual(enriched);
    expect(await callbacks.lease(10, 60_000)).toEqual([]);
    expect((await callbacks.claim(step('cb-once'))).answer).toEqual(enriched);
    // A request racing the first answers as the first did, even when its own wait ran out.
    expect(await callbacks.conclude('cb-once', 'pending')).toEqual(enriched);
    expect((await callbacks.get('cb-once'))?.completedAt).toBeInstanceOf(Date);
  });

  it('hands a step to the sender only once it was answered BLOCK, and a later request answers BLOCK too', async () => {
    const store = await t.openStore();
    const callbacks = store.workflowCallbacks;
    await callbacks.claim(step('cb-wait'));
    expect(await callbacks.lease(10, 60_000)).toEqual([]);
    expect(await callbacks.conclude('cb-wait', 'pending')).toBe('pending');
    expect((await callbacks.claim(step('cb-wait'))).answer).toBe('pending');
    expect(await callbacks.conclude('cb-wait', enriched)).toBe('pending');
    expect((await callbacks.lease(10, 60_000)).map((s) => s.callbackId)).toEqual(['cb-wait']);
  });

  it('prunes a step whose request stopped before answering, once HubSpot can no longer send it', async () => {
    const store = await t.openStore();
    const callbacks = store.workflowCallbacks;
    await callbacks.claim(step('cb-stopped'));
    expect(await callbacks.prune(30)).toBe(0);
    await store.db.query(`UPDATE "${store.schema}".workflow_callback SET created_at = now() - interval '31 days'`);
    expect(await callbacks.prune(30)).toBe(1);
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
