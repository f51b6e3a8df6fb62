import { expect, it } from 'vitest';
import { queueName } from '../../src/enrich/jobs.js';
import type { Store } from '../../src/store/store.js';
import { describeEachBackend } from '../support/db.js';

const Q = queueName('hubspot', 'contact');
const ada = { connection: 'default', objectType: 'contact', recordId: '7' };
const bob = { connection: 'default', objectType: 'contact', recordId: '8' };
const email = 'ada.lovelace@example.com';

async function fill(store: Store): Promise<void> {
  for (const r of [ada, bob]) {
    const who = r === ada ? email : 'bob@example.com';
    await store.state.upsertMany([
      {
        ...r,
        status: 'enriched',
        partnerId: `p-${r.recordId}`,
        matchKey: 'email',
        lastWritten: { email: who, jobtitle: 'CTO' },
      },
    ]);
    await store.audit.record([
      { ...r, property: 'jobtitle', newValue: 'CTO' },
      { ...r, reason: `no change for ${who}` },
    ]);
    await store.cache.putMany([
      {
        key: { kind: 'person', idType: 'email', value: who },
        hit: true,
        response: { id: `p-${r.recordId}`, email: who },
      },
    ]);
    await store.queue.enqueue(Q, [{ data: { ...r, email: who }, dedupKey: `evt-${r.recordId}` }]);
    const role = {
      personId: `p-${r.recordId}`,
      companyId: 'co_2',
      domain: 'globex.example',
      companyName: 'Globex',
      title: 'CTO',
      started: '2025-06',
    };
    const employer = { companyId: 'co_1', domain: 'acme.example', name: 'Acme' };
    await store.jobChanges.observe({
      key: r,
      role,
      change: {
        ...r,
        personId: role.personId,
        kind: 'employer',
        from: employer,
        to: employer,
        oldTitle: 'CEO',
        newTitle: 'CTO',
        started: '2025-06',
        reason: 'moved',
      },
    });
  }
}

const jobChangeRows = async (store: Store, recordId: string) =>
  (
    await store.db.query<{ n: number }>(
      `SELECT (SELECT count(*) FROM "${store.schema}".record_roles WHERE record_id = $1) + ` +
        `(SELECT count(*) FROM "${store.schema}".job_changes WHERE record_id = $1) AS n`,
      [recordId],
    )
  ).rows[0]!.n;

/** Every row in our tables and the queue's that mentions the record id or the address. */
async function traces(store: Store, recordId: string, needle: string): Promise<number> {
  const s = `"${store.schema}"`;
  const { rows } = await store.db.query<{ n: number }>(
    `SELECT (SELECT count(*) FROM ${s}.enrichment_state WHERE record_id = $1 OR strpos(written::text, $2) > 0)
          + (SELECT count(*) FROM ${s}.audit_log WHERE record_id = $1 OR strpos(coalesce(reason, ''), $2) > 0)
          + (SELECT count(*) FROM ${s}.lookup_cache WHERE value = $2 OR strpos(response::text, $2) > 0)
          + (SELECT count(*) FROM ${s}.received_event WHERE record_id = $1)
          + (SELECT count(*) FROM ${s}.job WHERE data->>'recordId' = $1 OR strpos(data::text, $2) > 0) AS n`,
    [recordId, needle],
  );
  return Number(rows[0]?.n);
}

describeEachBackend('erasure', (t) => {
  it('deletes every row about one record, says how many per table, and leaves other records alone', async () => {
    const store = await t.openStore();
    await fill(store);
    expect(await traces(store, '7', email)).toBeGreaterThan(0);

    const report = await store.erasure.eraseRecord(ada, { emails: [email] });
    expect(report).toEqual({
      enrichmentState: 1,
      auditLog: 2,
      lookupCache: 1,
      jobs: 1,
      receivedEvents: 1,
      jobChanges: 2,
    });
    expect(await traces(store, '7', email)).toBe(0);
    expect(Number(await jobChangeRows(store, '7'))).toBe(0);
    expect(Number(await jobChangeRows(store, '8'))).toBe(2);
    expect(await store.state.get(bob)).toBeDefined();
    expect(await store.audit.forRecord(bob)).toHaveLength(2);
    expect(await store.queue.depth(Q)).toBe(1);

    // A redelivered creation event for the erased record is a new event again: nothing remembers it.
    expect((await store.queue.enqueue(Q, [{ data: ada, dedupKey: 'evt-7' }])).enqueued).toBe(1);
  });

  it('deletes everything that holds an e-mail address, whatever its case, including dead-lettered jobs', async () => {
    const store = await t.openStore({ queue: { maxAttempts: 1 } });
    await fill(store);
    const [job] = (await store.queue.claim(Q, 10)).filter((j) => j.data.recordId === '7');
    await store.queue.fail(Q, job!, new Error(`partner rejected ${email}`));
    expect(await store.queue.deadLetters()).toHaveLength(1);

    const report = await store.erasure.eraseEmail(email.toUpperCase());
    expect(report.lookupCache).toBe(1);
    expect(report.enrichmentState).toBe(1);
    expect(report.auditLog).toBe(1);
    expect(report.jobs).toBeGreaterThanOrEqual(2);
    expect(await traces(store, '__none__', email)).toBe(0);
    expect(await store.queue.deadLetters()).toEqual([]);
    expect(await store.state.get(bob)).toBeDefined();
  });
});
