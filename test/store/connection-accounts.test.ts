/**
 * State that belongs to one account (issue 30, migration 012): a database made before rows named their
 * account keeps its state when the first start after the upgrade reads the same account; another
 * account behind the connection sees none of it, and is said to be another; jobs of another account
 * are parked, not run.
 */
import { expect, it } from 'vitest';
import { storePorts } from '../../src/app/store-ports.js';
import { listMigrations } from '../../src/store/migrate.js';
import { describeEachBackend, uniqueSchema, type TestDb } from '../support/db.js';

const key = { connection: 'hubspot', objectType: 'contact', recordId: '1001' };

/** A schema as the release before migration 012 left it, holding one contact's state, history and company. */
async function databaseBeforeAccounts(t: TestDb): Promise<string> {
  const schema = uniqueSchema('upg');
  const older = listMigrations().filter((m) => m.version < '012');
  await t.exec(
    [
      `CREATE SCHEMA "${schema}"; SET search_path TO "${schema}";`,
      'CREATE TABLE schema_migration (version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now());',
      ...older.map((m) => `${m.sql};\nINSERT INTO schema_migration (version) VALUES ('${m.version}');`),
      `INSERT INTO enrichment_state (connection, object_type, record_id, status, company_id, company_reason)
         VALUES ('hubspot', 'contact', '1001', 'enriched', '1003', 'created for acme.example');`,
      `INSERT INTO audit_log (connection, object_type, record_id, property, new_value, outcome, job_id)
         VALUES ('hubspot', 'contact', '1001', 'jobtitle', 'CEO', 'write', 'job-1');`,
      `INSERT INTO company_claim (connection, domain, company_id, claimed_by, created_at)
         VALUES ('hubspot', 'acme.example', '1003', 'an-instance', now());`,
      `INSERT INTO created_record (connection, object_type, record_id) VALUES ('hubspot', 'company', '1003');`,
      `INSERT INTO setting (key, value) VALUES ('sweep:hubspot:contact', '2026-11-01T00:00:00.000Z');`,
      'RESET search_path;',
    ].join('\n'),
  );
  return schema;
}

describeEachBackend('state of one account', (t) => {
  it("keeps an upgraded database's state when the account is unchanged, shows another account none of it", async () => {
    const schema = await databaseBeforeAccounts(t);
    const upgraded = await t.openStore({ schema });

    // First start after the upgrade: the account read now is the one the old rows belong to.
    const first = await upgraded.accounts.bind('hubspot', 'hubspot', '62515');
    expect(first).toMatchObject({ account: '62515', adopted: 5 });
    expect(first.previous).toBeUndefined();
    expect(await upgraded.state.get(key)).toMatchObject({ status: 'enriched', companyId: '1003' });
    expect((await upgraded.audit.forRecord(key)).map((r) => r.newValue)).toEqual(['CEO']);
    expect(Object.fromEntries(await upgraded.companies.created('hubspot', ['acme.example']))).toEqual({
      'acme.example': '1003',
    });
    expect(await upgraded.created.has('hubspot', 'company', ['1003'])).toEqual(new Set(['1003']));
    // The catch-up sweep's watermark is the account's too.
    expect(await storePorts(upgraded).kv.get('sweep:hubspot:contact')).toBe('2026-11-01T00:00:00.000Z');

    // A restart on the same account: nothing to say, nothing moved, the same state.
    const restarted = await t.openStore({ schema });
    expect(await restarted.accounts.bind('hubspot', 'hubspot', '62515')).toEqual({
      connection: 'hubspot',
      account: '62515',
      adopted: 0,
    });
    expect((await restarted.state.get(key))?.companyId).toBe('1003');

    // Another portal behind the connection: said, and none of the first portal's state for its record 1001.
    const other = await t.openStore({ schema });
    expect(await other.accounts.bind('hubspot', 'hubspot', '7654321')).toMatchObject({ previous: '62515' });
    expect(await other.state.get(key)).toBeUndefined();
    expect(await other.audit.forRecord(key)).toEqual([]);
    expect((await other.companies.created('hubspot', ['acme.example'])).size).toBe(0);
    expect((await other.created.has('hubspot', 'company', ['1003'])).size).toBe(0);
    expect(await other.state.countByStatus({ connection: 'hubspot' })).toMatchObject({ enriched: 0 });
    expect(await storePorts(other).kv.get('sweep:hubspot:contact')).toBeUndefined();
    // Its own record 1001 gets a state of its own, beside the first portal's.
    await other.state.upsertMany([{ ...key, status: 'no_match' }]);
    expect((await other.state.get(key))?.status).toBe('no_match');

    // Back on the first portal: its state is as it was.
    const back = await t.openStore({ schema });
    expect(await back.accounts.bind('hubspot', 'hubspot', '62515')).toMatchObject({ previous: '7654321' });
    expect(await back.state.get(key)).toMatchObject({ status: 'enriched', companyId: '1003' });
    expect((await back.accounts.seen()).map((s) => [s.connection, s.account])).toEqual([
      ['hubspot', '62515'],
      ['hubspot', '7654321'],
    ]);
  });

  it('parks a job of the account the connection was on before, and runs the current account’s', async () => {
    const schema = uniqueSchema();
    const before = await t.openStore({ schema });
    await before.accounts.bind('hubspot', 'hubspot', '62515');
    const queue = 'enrich.hubspot.contact';
    const job = (recordId: string) => ({
      queue,
      dedupKey: `event-${recordId}`,
      priority: 'interactive' as const,
      data: { connection: 'hubspot', objectType: 'contact', recordId, reason: 'created' as const },
    });
    expect((await storePorts(before).enqueue.enqueue([job('1001')])).inserted).toBe(1);

    const after = await t.openStore({ schema });
    await after.accounts.bind('hubspot', 'hubspot', '7654321');
    const ports = storePorts(after);
    // The same CRM event key in the new portal is a new event, not a duplicate of the old portal's.
    expect((await ports.enqueue.enqueue([job('1001')])).inserted).toBe(1);
    const claimed = await ports.queue.claim(queue, 10);
    expect(claimed.map((j) => j.data.account)).toEqual(['7654321']);
    const parked = await after.queue.deadLetters<{
      connection: string;
      objectType: string;
      recordId: string;
      account?: string;
    }>({ queue });
    expect(parked.map((p) => p.data.account)).toEqual(['62515']);
    expect(JSON.stringify(parked[0]!.error)).toContain('account_changed');
  });
});
