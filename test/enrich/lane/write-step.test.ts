/**
 * The lane's write step, with the pending writes in a real database and a fake CRM that records its
 * calls: a batch in one call, the identity values kept before it goes, a record the CRM refuses returned
 * apart with why, records with only a link to make written without a call, a failed call thrown.
 */
import { expect, it } from 'vitest';
import { storePorts } from '../../../src/app/store-ports.js';
import type { CrmConnector, RecordUpdate, WriteResult } from '../../../src/core/connector.js';
import { writeBatch, type WriteContext } from '../../../src/enrich/lane/write-step.js';
import { describeEachBackend } from '../../support/db.js';
import { contactMapping } from './lane-fixtures.js';

function fakeCrm(answer: (u: RecordUpdate) => WriteResult = (u) => ({ id: u.id, ok: true })) {
  const calls: { updates: RecordUpdate[]; priority: string | undefined }[] = [];
  const connector = {
    connection: 'hubspot',
    async writeRecords(_objectType: string, updates: RecordUpdate[], options?: { priority?: string }) {
      calls.push({ updates, priority: options?.priority });
      return updates.map(answer);
    },
  } as unknown as CrmConnector;
  return { connector, calls };
}

describeEachBackend('the write step', (t) => {
  async function context(connector: CrmConnector) {
    const ports = storePorts(await t.openStore());
    const ctx: WriteContext = { connector, objectType: 'contact', writing: ports.writing };
    return { ctx, ports };
  }

  it('writes a batch in one call at its priority, keeping the identity values first', async () => {
    const { connector, calls } = fakeCrm();
    const { ctx, ports } = await context(connector);
    const items: { recordId: string; properties: Record<string, string> }[] = [
      { recordId: '1', properties: { jobtitle: 'CTO', email: 'ada@acme.example' } },
      { recordId: '2', properties: { jobtitle: 'CEO' } },
    ];
    const result = await writeBatch(ctx, items, await contactMapping(), 'interactive');
    expect(calls).toEqual([
      {
        updates: [
          { id: '1', properties: items[0]!.properties },
          { id: '2', properties: items[1]!.properties },
        ],
        priority: 'interactive',
      },
    ]);
    expect(result).toEqual({ written: items, refused: [] });
    // Only the match property's value is kept: the intake tells its change event for the service's own.
    const kept = await ports.writing.get('hubspot', 'contact', ['1', '2']);
    expect(Object.fromEntries(kept)).toEqual({ '1': { email: 'ada@acme.example' } });
  });

  it('returns a record the CRM refused apart, with the reason it gave', async () => {
    const { connector } = fakeCrm((u) =>
      u.id === '2'
        ? { id: u.id, ok: false, error: { code: 'validation', message: 'jobtitle is too long', retryable: false } }
        : { id: u.id, ok: true },
    );
    const { ctx } = await context(connector);
    const items = [
      { recordId: '1', properties: { jobtitle: 'CTO' } },
      { recordId: '2', properties: { jobtitle: 'x'.repeat(300) } },
    ];
    const result = await writeBatch(ctx, items, await contactMapping(), 'bulk');
    expect(result.written).toEqual([items[0]]);
    expect(result.refused).toEqual([
      { item: items[1], failure: { code: 'validation', message: 'jobtitle is too long', retryable: false } },
    ]);
  });

  it('makes no call when the records only have a company link to make', async () => {
    const { connector, calls } = fakeCrm();
    const { ctx } = await context(connector);
    const items = [{ recordId: '1', properties: {} }];
    expect(await writeBatch(ctx, items, await contactMapping(), 'bulk')).toEqual({ written: items, refused: [] });
    expect(calls).toEqual([]);
  });

  it('throws when the call fails as a whole', async () => {
    const connector = {
      connection: 'hubspot',
      writeRecords: async () => {
        throw new Error('connection reset');
      },
    } as unknown as CrmConnector;
    const { ctx } = await context(connector);
    await expect(
      writeBatch(ctx, [{ recordId: '1', properties: { jobtitle: 'CTO' } }], await contactMapping(), 'bulk'),
    ).rejects.toThrow('connection reset');
  });
});
