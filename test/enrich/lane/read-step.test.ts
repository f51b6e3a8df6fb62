/**
 * The lane's read step, with the state and the service's own creations in a real database and a fake
 * CRM that counts its reads: one read for a batch, fresh listed values standing in for it, the service's
 * own creations and the undecided ones set apart unread, records gone and reads refused returned apart.
 */
import { expect, it } from 'vitest';
import { storePorts } from '../../../src/app/store-ports.js';
import type { CrmConnector, CrmRecord } from '../../../src/core/connector.js';
import { CrmError } from '../../../src/core/connector.js';
import { readBatch, type ReadContext } from '../../../src/enrich/lane/read-step.js';
import type { PartnerLookups } from '../../../src/enrich/partner-lookups.js';
import { describeEachBackend } from '../../support/db.js';
import { byRecord, contactMapping, job } from './lane-fixtures.js';

/** A CRM that holds `records` and says which ids each read asked for. */
function fakeCrm(records: CrmRecord[], fail?: Error) {
  const reads: string[][] = [];
  const connector = {
    connection: 'hubspot',
    companyLinkProperties: { contact: 'associatedcompanyid' },
    async readRecords(_objectType: string, ids: string[]) {
      reads.push(ids);
      if (fail) throw fail;
      return records.filter((r) => ids.includes(r.id));
    },
  } as unknown as CrmConnector;
  return { connector, reads };
}

/** No test here asks the partner: only an enriched record's refresh would. */
const noLookups = {
  find: async () => {
    throw new Error('the read step asked the partner');
  },
} as unknown as PartnerLookups;

const contact = (id: string): CrmRecord => ({ id, properties: { email: `${id}@acme.example` } });

describeEachBackend('the read step', (t) => {
  async function context(connector: CrmConnector): Promise<ReadContext & { ports: ReturnType<typeof storePorts> }> {
    const ports = storePorts(await t.openStore());
    return { connector, objectType: 'contact', state: ports.state, lookups: noLookups, created: ports.created, ports };
  }

  it('reads a batch in one CRM call and returns each record with its jobs, state and priority', async () => {
    const { connector, reads } = fakeCrm([contact('1'), contact('2')]);
    const ctx = await context(connector);
    const jobs = [job('a', '1'), job('b', '2', {}, true), job('c', '2')];
    const read = await readBatch(ctx, byRecord(jobs), await contactMapping());
    expect(reads).toEqual([['1', '2']]);
    expect(read.works.map((w) => [w.record.id, w.jobs.map((j) => j.id), w.priority])).toEqual([
      ['1', ['a'], 'bulk'],
      ['2', ['b', 'c'], 'interactive'],
    ]);
    expect(read).toMatchObject({ ours: [], undecided: [], done: [], failed: [], foreignToken: 0 });
  });

  it('lets fresh listed values stand in for the read, and returns a record the CRM no longer has as done', async () => {
    const { connector, reads } = fakeCrm([]);
    const ctx = await context(connector);
    const mapping = await contactMapping();
    const snapshot = {
      at: new Date().toISOString(),
      read: [...mapping.propertiesToRead, 'associatedcompanyid'],
      properties: { email: 'listed@acme.example' },
    };
    const read = await readBatch(ctx, byRecord([job('a', '1', { snapshot }), job('b', '2')]), mapping);
    expect(reads).toEqual([['2']]);
    expect(read.works.map((w) => w.record)).toEqual([{ id: '1', properties: { email: 'listed@acme.example' } }]);
    expect(read.done).toEqual([
      expect.objectContaining({ recordId: '2', result: expect.objectContaining({ kind: 'no_key' }) }),
    ]);
  });

  it("sets the service's own creations apart unread, and holds back creations while one is under way", async () => {
    const { connector, reads } = fakeCrm([contact('3')]);
    const ctx = await context(connector);
    await ctx.ports.created.add('hubspot', 'contact', ['1']);
    const created = { reason: 'created' as const };
    const batch = [job('a', '1', created), job('b', '2', created), job('c', '3', { ...created, byAnother: true })];
    const quiet = await readBatch(ctx, byRecord(batch), await contactMapping());
    expect(quiet.ours).toEqual(['1']);
    expect(quiet.undecided).toEqual([]);
    expect(reads.at(-1)).toEqual(['2', '3']);

    await ctx.ports.created.begin('hubspot', 'contact');
    const busy = await readBatch(ctx, byRecord(batch), await contactMapping());
    expect(busy.ours).toEqual(['1']);
    // Another maker's creation is never held back.
    expect(busy.undecided).toEqual(['2']);
    expect(busy.works.map((w) => w.record.id)).toEqual(['3']);
  });

  it('counts changes made with the service token by someone else, on their first claim only', async () => {
    const { connector } = fakeCrm([contact('1'), contact('2')]);
    const ctx = await context(connector);
    const retried = { ...job('b', '2', { byThisService: true }), retryCount: 1 };
    const read = await readBatch(
      ctx,
      byRecord([job('a', '1', { byThisService: true }), retried]),
      await contactMapping(),
    );
    expect(read.foreignToken).toBe(1);
  });

  it('returns the records whose read failed, with why, and runs none of them', async () => {
    const down = new CrmError('hubspot', 'unavailable', 'HubSpot answered 503');
    const { connector } = fakeCrm([], down);
    const ctx = await context(connector);
    const read = await readBatch(ctx, byRecord([job('a', '1'), job('b', '2')]), await contactMapping());
    expect(read.works).toEqual([]);
    expect(read.failed).toEqual([{ recordIds: ['1', '2'], error: down }]);
  });
});
