import { expect, it } from 'vitest';
import { queueName } from '../../src/enrich/jobs.js';
import { describeChanges, policyChanges } from '../../src/store/queue-policy.js';
import { describeEachBackend } from '../support/db.js';

const Q = queueName('hubspot', 'contact');
const ref = (recordId: string) => ({ connection: 'default', objectType: 'contact', recordId });

async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 200));
  }
}

describeEachBackend('job queue', (t) => {
  it('names one queue per connection and object', () => {
    expect(Q).toBe('enrich.hubspot.contact');
    expect(queueName('eu org', 'Lead')).toBe('enrich.eu_org.lead');
  });

  it('makes one job of an event delivered twice: in one batch, in two, and after the first completed', async () => {
    const store = await t.openStore();
    const first = await store.queue.enqueue(Q, [
      { data: ref('1'), dedupKey: 'portal:contact.creation:1:1000' },
      { data: ref('1'), dedupKey: 'portal:contact.creation:1:1000' },
      { data: ref('2'), dedupKey: 'portal:contact.creation:2:1000' },
    ]);
    expect(first).toMatchObject({ enqueued: 2, duplicates: 1 });
    expect(first.ids).toHaveLength(2);

    const again = await store.queue.enqueue(Q, [{ data: ref('1'), dedupKey: 'portal:contact.creation:1:1000' }]);
    expect(again).toMatchObject({ enqueued: 0, duplicates: 1, ids: [] });

    const claimed = await store.queue.claim(Q, 10);
    expect(claimed.map((j) => j.data.recordId).sort()).toEqual(['1', '2']);
    expect(await store.queue.complete(Q, claimed)).toBe(2);

    // Redelivered hours later, after the job is done: still the same event.
    const late = await store.queue.enqueue(Q, [{ data: ref('1'), dedupKey: 'portal:contact.creation:1:1000' }]);
    expect(late.enqueued).toBe(0);
    expect(await store.queue.claim(Q, 10)).toEqual([]);

    // Jobs without a key are never taken for duplicates.
    const manual = await store.queue.enqueue(Q, [{ data: ref('1') }, { data: ref('1') }]);
    expect(manual.enqueued).toBe(2);
  });

  it('hands out interactive work ahead of bulk work and claims a batch at once', async () => {
    const store = await t.openStore();
    await store.queue.enqueue(
      Q,
      Array.from({ length: 5 }, (_, i) => ({ data: ref(`bulk-${i}`), priority: 'bulk' as const })),
    );
    await store.queue.enqueue(Q, [{ data: ref('new-1'), priority: 'interactive' }, { data: ref('new-2') }]);
    const batch = await store.queue.claim(Q, 3);
    expect(batch).toHaveLength(3);
    const ids = batch.map((j) => j.data.recordId);
    expect(ids).toContain('new-1');
    expect(ids).toContain('new-2');
    expect(batch.every((j) => j.attempt === 1)).toBe(true);
    const counts = (await store.queue.counts()).find((c) => c.queue === Q);
    expect(counts).toMatchObject({ active: 3, created: 4, depth: 4 });
    expect(await store.queue.depth(Q)).toBe(4);
  });

  it('gives a job whose worker died to another worker once its claim expires', async () => {
    const settings = { expireInSeconds: 1, superviseIntervalSeconds: 1, retryDelaySeconds: 0 };
    const store = await t.openStore({ queue: settings });
    await store.queue.enqueue(Q, [{ data: ref('crashy') }]);
    const [lost] = await store.queue.claim(Q, 10);
    expect(lost?.data.recordId).toBe('crashy');
    expect(await store.queue.claim(Q, 10)).toEqual([]);

    // The worker "dies": it never completes. A second instance on the same schema picks the job up.
    const other = await t.openStore({ schema: store.schema, queue: settings });
    const [retried] = await waitFor(async () => {
      const jobs = await other.queue.claim(Q, 10);
      return jobs.length ? jobs : undefined;
    });
    expect(retried?.id).toBe(lost?.id);
    expect(retried?.attempt).toBe(2);
    // The dead worker's late completion no longer counts; the live one's does.
    expect(await store.queue.complete(Q, [lost!])).toBe(0);
    expect(await other.queue.complete(Q, [retried!])).toBe(1);
  });

  it('retries a failing job with backoff, parks it in the dead letter with its last error, replays it', async () => {
    const store = await t.openStore({ queue: { maxAttempts: 2, retryDelaySeconds: 1, retryDelayMaxSeconds: 2 } });
    await store.queue.enqueue(Q, [{ data: ref('bad'), dedupKey: 'k-bad' }, { data: ref('good') }]);
    const batch = await store.queue.claim(Q, 10);
    const bad = batch.find((j) => j.data.recordId === 'bad')!;
    await store.queue.complete(
      Q,
      batch.filter((j) => j !== bad),
    );
    expect(await store.queue.fail(Q, bad, new Error('partner answered 503'))).toBe(true);

    // Backoff: not handed out again at once, and listed as retrying with the error it met.
    expect(await store.queue.claim(Q, 10)).toEqual([]);
    const retrying = await store.queue.retrying();
    expect(retrying).toEqual([
      expect.objectContaining({
        id: bad.id,
        queue: Q,
        data: ref('bad'),
        failedAttempts: 1,
        attemptsLeft: 1,
        error: expect.objectContaining({ message: 'partner answered 503' }),
      }),
    ]);
    expect(retrying[0]!.nextAttemptAt.getTime()).toBeGreaterThan(Date.now() - 1000);
    const [second] = await waitFor(async () => {
      const jobs = await store.queue.claim(Q, 10);
      return jobs.length ? jobs : undefined;
    });
    expect(second?.attempt).toBe(2);
    const lastError = Object.assign(new Error('partner answered 500'), { code: 'unavailable' });
    await store.queue.fail(Q, second!, lastError);

    const dead = await store.queue.deadLetters();
    expect(dead).toHaveLength(1);
    expect(await store.queue.retrying()).toEqual([]);
    expect(dead[0]).toMatchObject({
      queue: Q,
      data: ref('bad'),
      attempts: 2,
      error: { message: 'partner answered 500', code: 'unavailable', parked: 'attempts_exhausted' },
      parkedReason: 'parked because all 2 attempts failed, the last with unavailable',
    });
    expect(await store.queue.claim(Q, 10)).toEqual([]);

    expect(await store.queue.replay([dead[0]!.id])).toBe(1);
    expect(await store.queue.deadLetters()).toEqual([]);
    const [replayed] = await store.queue.claim(Q, 10);
    expect(replayed).toMatchObject({ data: ref('bad'), attempt: 1 });
    await store.queue.complete(Q, [replayed!]);
  });

  it('replays every dead letter when no ids are given', async () => {
    const store = await t.openStore({ queue: { maxAttempts: 1 } });
    await store.queue.enqueue(Q, [{ data: ref('a') }, { data: ref('b') }]);
    for (const job of await store.queue.claim(Q, 10)) await store.queue.fail(Q, job, 'no');
    const dead = await store.queue.deadLetters({ queue: Q });
    expect(dead.map((d) => d.data.recordId).sort()).toEqual(['a', 'b']);
    expect(dead.map((d) => d.parkedReason)).toEqual([
      'parked because its only attempt failed',
      'parked because its only attempt failed',
    ]);
    expect(await store.queue.replay()).toBe(2);
    expect(await store.queue.depth(Q)).toBe(2);
  });

  it('parks a job at once when its error cannot succeed on retry', async () => {
    const store = await t.openStore({ queue: { maxAttempts: 5 } });
    await store.queue.enqueue(Q, [{ data: ref('invalid') }]);
    const [job] = await store.queue.claim(Q, 1);
    await store.queue.fail(Q, job!, {
      code: 'validation',
      message: 'property jobtitle is read-only',
      retryable: false,
    });
    expect(await store.queue.depth(Q)).toBe(0);
    expect(await store.queue.deadLetters()).toMatchObject([
      {
        data: ref('invalid'),
        attempts: 1,
        error: { code: 'validation', message: 'property jobtitle is read-only' },
        parkedReason: 'parked at once: a permanent error (validation) that no retry can fix',
      },
    ]);
  });

  it('puts released jobs back without spending an attempt, after the delay', async () => {
    const store = await t.openStore();
    await store.queue.enqueue(Q, [{ data: ref('paused') }]);
    const [job] = await store.queue.claim(Q, 1);
    expect(await store.queue.release(Q, [job!], 1000)).toBe(1);
    expect(await store.queue.claim(Q, 1)).toEqual([]);
    await new Promise((r) => setTimeout(r, 1100));
    const [again] = await store.queue.claim(Q, 1);
    expect(again).toMatchObject({ id: job!.id, attempt: 1 });
    // The stale claim from before the release settles nothing.
    expect(await store.queue.release(Q, [job!], 0)).toBe(1);
    const [third] = await store.queue.claim(Q, 1);
    expect(await store.queue.complete(Q, [third!])).toBe(1);
  });

  it("hands a stopped worker's jobs on at once, without an attempt; a beating holder keeps its own", async () => {
    const store = await t.openStore();
    await store.queue.enqueue(Q, [{ data: ref('alive') }, { data: ref('dead') }]);
    const claimed = await store.queue.claim(Q, 10);
    const alive = claimed.find((j) => j.data.recordId === 'alive')!;
    const dead = claimed.find((j) => j.data.recordId === 'dead')!;
    await new Promise((r) => setTimeout(r, 1_200));
    // Only the live holder beats; an instance looking for stale claims finds the other one.
    expect(await store.queue.heartbeat(Q, [alive])).toBe(1);
    const other = await t.openStore({ schema: store.schema });
    expect(await other.queue.reclaimStale([Q], 1)).toBe(1);
    const [again] = await other.queue.claim(Q, 10);
    expect(again).toMatchObject({ id: dead.id, attempt: 1 });
    expect(await other.queue.claim(Q, 10)).toEqual([]);
    expect(await store.queue.complete(Q, [alive])).toBe(1);
    expect(await other.queue.complete(Q, [again!])).toBe(1);
  });

  it('leaves a job that keeps losing workers to expiry, so a poison job still ends in the dead letter', async () => {
    const store = await t.openStore();
    await store.queue.enqueue(Q, [{ data: ref('poison') }]);
    for (let i = 0; i < 2; i++) {
      const [job] = await store.queue.claim(Q, 1);
      expect(job?.attempt).toBe(1);
      await new Promise((r) => setTimeout(r, 1_100));
      expect(await store.queue.reclaimStale([Q], 1, 2)).toBe(1);
    }
    await store.queue.claim(Q, 1);
    await new Promise((r) => setTimeout(r, 1_100));
    expect(await store.queue.reclaimStale([Q], 1, 2)).toBe(0);
    // A heartbeat from a holder whose attempt has moved on vouches for nothing.
    expect(await store.queue.heartbeat(Q, [{ id: 'ffffffff-ffff-4fff-bfff-ffffffffffff', retryCount: 0 }])).toBe(0);
  });

  it(
    'commits batches that arrive together as one group, each with its own counts, ' +
      'a key shared between them stored once',
    async () => {
      const store = await t.openStore();
      const batches = Array.from({ length: 12 }, (_, b) =>
        Array.from({ length: 5 }, (_, i) => ({
          data: ref(`g${b}-${i}`),
          dedupKey: i === 0 ? 'shared-key' : `key-${b}-${i}`,
        })),
      );
      const results = await Promise.all(batches.map((jobs) => store.queue.enqueue(Q, jobs)));
      // The shared key is new for exactly one batch; every other batch sees it as a duplicate.
      expect(results.reduce((n, r) => n + r.enqueued, 0)).toBe(12 * 4 + 1);
      expect(results.filter((r) => r.enqueued === 5)).toHaveLength(1);
      for (const r of results) {
        expect(r.enqueued + r.duplicates).toBe(5);
        expect(r.ids).toHaveLength(r.enqueued);
      }
      expect(await store.queue.depth(Q)).toBe(12 * 4 + 1);
      // Each id names the job of its own batch's record.
      const claimed = await store.queue.claim(Q, 100);
      const recordOf = new Map(claimed.map((j) => [j.id, j.data.recordId]));
      results.forEach((r, b) => {
        for (const id of r.ids) expect(recordOf.get(id)).toMatch(new RegExp(`^g${b}-`));
      });
      await store.queue.release(Q, claimed, 0);
      // Delivered again, all of it is a duplicate.
      const again = await Promise.all(batches.map((jobs) => store.queue.enqueue(Q, jobs)));
      expect(again.every((r) => r.enqueued === 0 && r.duplicates === 5)).toBe(true);

      // Jobs without a key, grouped with keyed ones, are always stored.
      const mixed = await Promise.all([
        store.queue.enqueue(Q, [{ data: ref('manual-1') }, { data: ref('g0-1'), dedupKey: 'key-0-1' }]),
        store.queue.enqueue(Q, [{ data: ref('manual-2') }, { data: ref('new-1'), dedupKey: 'key-new-1' }]),
      ]);
      expect(mixed.map((r) => [r.enqueued, r.duplicates])).toEqual([
        [1, 1],
        [2, 0],
      ]);
    },
  );

  it('applies changed retry, expiry and attempt settings at the next start, to jobs stored from then on', async () => {
    const first = await t.openStore({ queue: { retryDelaySeconds: 10, expireInSeconds: 300, maxAttempts: 5 } });
    const schema = first.schema;
    await first.queue.enqueue(Q, [{ data: ref('before') }]);
    await first.close();

    const policyOf = async (store: typeof first) =>
      (
        await store.db.query<{ record: string; retry_delay: number; expire_seconds: number; retry_limit: number }>(
          `SELECT data->>'recordId' AS record, retry_delay, expire_seconds, retry_limit FROM "${schema}".job ` +
            'WHERE name = $1 ORDER BY created_on',
          [Q],
        )
      ).rows;
    const queueRow = async (store: typeof first) =>
      (
        await store.db.query(`SELECT retry_delay, expire_seconds, retry_limit FROM "${schema}".queue WHERE name = $1`, [
          Q,
        ])
      ).rows[0];

    const second = await t.openStore({
      schema,
      queue: { retryDelaySeconds: 30, expireInSeconds: 120, maxAttempts: 3 },
    });
    await second.queue.enqueue(Q, [{ data: ref('after') }]);
    expect(await queueRow(second)).toEqual({ retry_delay: 30, expire_seconds: 120, retry_limit: 2 });
    // The job stored before keeps the policy it was stored with; the new one has the new settings.
    expect(await policyOf(second)).toEqual([
      { record: 'before', retry_delay: 10, expire_seconds: 300, retry_limit: 4 },
      { record: 'after', retry_delay: 30, expire_seconds: 120, retry_limit: 2 },
    ]);
    await second.close();

    // Started again with the same settings, nothing is rewritten.
    const third = await t.openStore({ schema, queue: { retryDelaySeconds: 30, expireInSeconds: 120, maxAttempts: 3 } });
    await third.queue.enqueue(Q, [{ data: ref('again') }]);
    expect((await policyOf(third)).at(-1)).toEqual({
      record: 'again',
      retry_delay: 30,
      expire_seconds: 120,
      retry_limit: 2,
    });
  });

  it('describes each policy change by its setting, from what to what', () => {
    const { update, changes } = policyChanges(
      { retryLimit: 4, retryDelay: 10, retryDelayMax: 3600, expireInSeconds: 300 },
      { retryLimit: 2, retryDelay: 30, retryDelayMax: 3600, expireInSeconds: 300 },
    );
    expect(update).toEqual({ retryLimit: 2, retryDelay: 30 });
    expect(describeChanges(changes)).toBe(
      'CRM_ENRICH_JOB_ATTEMPTS 5 -> 3; CRM_ENRICH_JOB_RETRY_DELAY_SECONDS 10 -> 30',
    );
  });
});
