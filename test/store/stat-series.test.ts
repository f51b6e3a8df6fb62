/**
 * The admin charts' store on PGlite and on a Postgres server: counts from two recorders (two
 * instances) add up per minute, gauges keep their highest sample, steps sum counters and take gauge
 * peaks, a failed write keeps its counts for the next flush, old minutes are pruned, the queue
 * backlog gauge reads pg-boss's table, and field coverage reads the audit trail before and after.
 */
import { expect, it } from 'vitest';
import { StatsRecorder, SERIES } from '../../src/store/stats-recorder.js';
import { describeEachBackend } from '../support/db.js';

const at = (iso: string) => new Date(iso);

describeEachBackend('stat series', (t) => {
  it('adds counts from several recorders, keeps gauge peaks and reads them in steps', async () => {
    const store = await t.openStore();
    let now = at('2026-05-01T10:00:05Z');
    const recorder = (crm: () => number, depth: number) =>
      new StatsRecorder({
        write: (points) => store.series.add(points),
        backlog: async () => ({ depth, oldestAgeSeconds: depth * 10 }),
        crmCalls: () => ({ hubspot: crm() }),
        now: () => now,
      });
    let callsA = 5;
    const a = recorder(() => callsA, 3);
    const b = recorder(() => 2, 7);
    a.count(SERIES.job('enriched'), 2);
    a.count(SERIES.job('enriched'));
    b.count(SERIES.job('enriched'), 4);
    b.count(SERIES.job('no_match'));
    await Promise.all([a.flush(), b.flush()]);
    now = at('2026-05-01T10:01:30Z');
    callsA = 9; // four more calls since the last flush: only the difference is added
    a.count(SERIES.job('enriched'));
    await a.flush();
    await a.flush(); // nothing new: writes no counts twice

    const minute = await store.series.read(at('2026-05-01T10:00:00Z'), at('2026-05-01T10:03:00Z'), 60);
    expect(minute.steps.map((s) => s.toISOString())).toEqual([
      '2026-05-01T10:00:00.000Z',
      '2026-05-01T10:01:00.000Z',
      '2026-05-01T10:02:00.000Z',
    ]);
    expect(minute.values[SERIES.job('enriched')]).toEqual([7, 1, 0]);
    expect(minute.values[SERIES.job('no_match')]).toEqual([1, 0, 0]);
    expect(minute.values[SERIES.crmCalls('hubspot')]).toEqual([7, 4, 0]);
    // Two instances sample one shared queue: the higher sample stands, not the sum. No sample is null.
    expect(minute.values[SERIES.queueDepth]).toEqual([7, 3, null]);
    expect(minute.values[SERIES.oldestJobAge]).toEqual([70, 30, null]);

    const hour = await store.series.read(at('2026-05-01T10:00:00Z'), at('2026-05-01T11:00:00Z'), 3600);
    expect(hour.values[SERIES.job('enriched')]).toEqual([8]);
    expect(hour.values[SERIES.queueDepth]).toEqual([7]);
  });

  it('keeps the counts of a failed write for the next flush', async () => {
    const store = await t.openStore();
    let failing = true;
    const recorder = new StatsRecorder({
      write: async (points) => {
        if (failing) throw new Error('database away');
        await store.series.add(points);
      },
      backlog: async () => ({ depth: 0, oldestAgeSeconds: null }),
      crmCalls: () => ({}),
      now: () => at('2026-05-01T10:00:00Z'),
    });
    recorder.count(SERIES.partnerRequests, 3);
    await recorder.flush();
    recorder.count(SERIES.partnerRequests, 2);
    failing = false;
    await recorder.stop();
    const { values } = await store.series.read(at('2026-05-01T10:00:00Z'), at('2026-05-01T10:01:00Z'), 60);
    expect(values[SERIES.partnerRequests]).toEqual([5]);
    expect(values[SERIES.oldestJobAge]).toBeUndefined();
  });

  it('prunes minutes older than the days kept', async () => {
    const store = await t.openStore();
    const old = new Date(Date.now() - 40 * 86_400_000);
    await store.series.add([
      { bucket: old, name: 'jobs.enriched', value: 1 },
      { bucket: new Date(), name: 'jobs.enriched', value: 1 },
    ]);
    expect(await store.series.prune(35)).toBe(1);
    expect(await store.series.prune(35)).toBe(0);
  });

  it('reads the queue backlog: waiting and running jobs and the oldest waiting one', async () => {
    const store = await t.openStore();
    expect(await store.queue.backlog()).toEqual({ depth: 0, oldestAgeSeconds: null });
    await store.queue.enqueue('enrich.hubspot.contact', [
      { data: { connection: 'hubspot', objectType: 'contact', recordId: '1' }, dedupKey: 'a' },
      { data: { connection: 'hubspot', objectType: 'contact', recordId: '2' }, dedupKey: 'b' },
    ]);
    const backlog = await store.queue.backlog();
    expect(backlog.depth).toBe(2);
    expect(backlog.oldestAgeSeconds).toBeGreaterThanOrEqual(0);
    expect(backlog.oldestAgeSeconds).toBeLessThan(60);
  });

  it('counts each mapped property filled before the first run and after the newest', async () => {
    const store = await t.openStore();
    const key = (recordId: string) => ({ connection: 'hubspot', objectType: 'contact', recordId });
    await store.state.upsertMany(['1', '2', '3', '4'].map((id) => ({ ...key(id), status: 'enriched' as const })));
    // 4 holds its job title as crm-enrich would write it: no audit row, but filled before and after.
    await store.state.upsertMany([{ ...key('4'), status: 'enriched', lastWritten: { jobtitle: 'CTO' } }]);
    await store.audit.record([
      { ...key('1'), property: 'jobtitle', oldValue: null, newValue: 'CEO', outcome: 'write' },
      { ...key('2'), property: 'jobtitle', oldValue: 'Dev', newValue: 'Engineer', outcome: 'write' },
      { ...key('2'), property: 'jobtitle', oldValue: 'Engineer', newValue: 'Lead', outcome: 'kept_person_edit' },
      { ...key('3'), property: 'phone', oldValue: '', newValue: '+49 1', outcome: 'write' },
      { ...key('3'), reason: 'nothing to write', outcome: 'unchanged' },
    ]);
    expect(await store.coverage.of('hubspot', 'contact', ['jobtitle', 'phone', 'city'])).toEqual([
      { property: 'jobtitle', records: 4, before: 2, after: 3 },
      { property: 'phone', records: 4, before: 0, after: 1 },
      { property: 'city', records: 4, before: 0, after: 0 },
    ]);
    expect(await store.coverage.of('hubspot', 'company', ['name'])).toEqual([
      { property: 'name', records: 0, before: 0, after: 0 },
    ]);
  });
});
