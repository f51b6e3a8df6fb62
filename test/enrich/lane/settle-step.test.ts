/**
 * The lane's settle step: a record's outcome stored as state and audit rows (on a real database), then
 * its jobs completed and counted; an error puts jobs back unspent or fails them as it says. The queue is
 * a fake that records what it was told.
 */
import { expect, it } from 'vitest';
import { storePorts } from '../../../src/app/store-ports.js';
import { LimiterError } from '../../../src/limits/limiter-error.js';
import type { EnrichJob } from '../../../src/enrich/jobs.js';
import { HeldJobs } from '../../../src/enrich/lane/held-jobs.js';
import { failJobs, settleRuns, type SettleContext } from '../../../src/enrich/lane/settle-step.js';
import type { JobFailure, JobQueuePort } from '../../../src/enrich/ports.js';
import { runOutcome } from '../../../src/enrich/record/run-outcome.js';
import { describeEachBackend } from '../../support/db.js';

const QUEUE = 'enrich.hubspot.contact';

function fakeQueue() {
  const told = { completed: [] as string[], released: [] as { id: string; delayMs: number }[], failed: [] as string[] };
  const queue: JobQueuePort = {
    claim: async () => [],
    complete: async (_q, jobs) => void told.completed.push(...jobs.map((j) => j.id)),
    release: async (_q, jobs, delayMs) => void told.released.push(...jobs.map((j) => ({ id: j.id, delayMs }))),
    fail: async (_q, job: EnrichJob, _f: JobFailure) => void told.failed.push(job.id),
    heartbeat: async () => undefined,
  };
  return { queue, told };
}

const job = (id: string, recordId: string): EnrichJob => ({
  id,
  priority: 'bulk',
  retryCount: 0,
  data: { connection: 'hubspot', objectType: 'contact', recordId, reason: 'backfill' },
});

describeEachBackend('the settle step', (t) => {
  async function settler() {
    const store = await t.openStore();
    const ports = storePorts(store);
    const { queue, told } = fakeQueue();
    const ctx: SettleContext = {
      held: new HeldJobs(queue, QUEUE, () => undefined),
      state: ports.state,
      where: { connection: 'hubspot', objectType: 'contact', refreshAfterDays: 30 },
      queue: QUEUE,
    };
    return { ctx, store, ports, told };
  }

  it('stores the outcome as state and audit rows before it completes the jobs, and counts them', async () => {
    const { ctx, store, ports, told } = await settler();
    const run = { recordId: 'r-1', jobs: [job('j-1', 'r-1'), job('j-2', 'r-1')] };
    const counted = await settleRuns(ctx, [runOutcome(run, { kind: 'no_match', market: 'AU', tried: ['email'] })]);

    const state = (await ports.state.getMany('hubspot', 'contact', ['r-1'])).get('r-1');
    expect(state).toMatchObject({ status: 'no_match', market: 'AU' });
    const { audit } = await store.recordView({ connection: 'hubspot', objectType: 'contact', recordId: 'r-1' }, 10);
    expect(audit).toEqual([expect.objectContaining({ outcome: 'no_match', jobId: 'j-1', property: null })]);
    expect(told.completed).toEqual(['j-1', 'j-2']);
    expect(counted).toEqual([{ outcome: 'no_match', count: 2 }]);
  });

  it('puts jobs back unspent when the limiter is full, and fails them on an error no retry mends', async () => {
    const { ctx, told } = await settler();
    const reported = await failJobs(ctx, [job('j-3', 'r-3')], new LimiterError('limiter_full', 'full'), false);
    expect(told.released).toEqual([{ id: 'j-3', delayMs: 1_000 }]);
    // An unexpected error is retried; a job is parked only after its last attempt (the queue's rule).
    reported.push(...(await failJobs(ctx, [job('j-4', 'r-4')], new Error('something broke'), false)));
    expect(told.failed).toEqual(['j-4']);
    const unreadable = { code: 'invalid_event', message: 'unreadable', retryable: false };
    reported.push(...(await failJobs(ctx, [job('j-6', 'r-6')], unreadable, false)));
    expect(told.failed).toEqual(['j-4', 'j-6']);
    expect(reported.map((r) => r.outcome)).toEqual(['released', 'retried', 'failed']);
  });

  it('puts work the stopped limiter refused back at once while the lane stops', async () => {
    const { ctx, told } = await settler();
    await failJobs(ctx, [job('j-5', 'r-5')], new LimiterError('limiter_stopped', 'stopped'), true);
    expect(told.released).toEqual([{ id: 'j-5', delayMs: 0 }]);
    // Not stopping, the same refusal is a failure the queue retries.
    await failJobs(ctx, [job('j-7', 'r-7')], new LimiterError('limiter_stopped', 'stopped'), false);
    expect(told.failed).toEqual(['j-7']);
  });
});
