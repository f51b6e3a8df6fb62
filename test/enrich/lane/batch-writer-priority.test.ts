/**
 * A person's write that joins a gathered bulk batch larger than one CRM call (a Salesforce ingest job)
 * goes in its own interactive write, and the bulk writes keep bulk priority together; a batch no larger
 * than one call is written once, at the person's priority, as before.
 */
import { describe, expect, it, vi } from 'vitest';
import type { CrmConnector, RecordUpdate } from '../../../src/core/connector.js';
import type { Priority } from '../../../src/core/limiter.js';
import { BatchWriter, type BatchWriterOptions } from '../../../src/enrich/lane/batch-writer.js';
import type { Work } from '../../../src/enrich/lane/lane-options.js';
import type { BufferedWrite } from '../../../src/enrich/lane/write-buffer.js';

function setup(batchSize: number) {
  const calls: { ids: string[]; priority: Priority | undefined }[] = [];
  const connector = {
    connection: 'salesforce',
    batchSize,
    writeRecords: async (_type: string, updates: RecordUpdate[], options?: { priority?: Priority }) => {
      calls.push({ ids: updates.map((u) => u.id), priority: options?.priority });
      return updates.map((u) => ({ id: u.id, ok: true }));
    },
  } as unknown as CrmConnector;
  const settled: string[] = [];
  const writer = new BatchWriter({
    connector,
    objectType: 'Contact',
    queue: 'enrich.salesforce.contact',
    mapping: () => {
      throw new Error('not read without pending writes to keep');
    },
    links: { link: async () => ({}) },
    settler: {
      settle: async (runs: { recordId: string }[]) => void settled.push(...runs.map((r) => r.recordId)),
      fail: vi.fn(async () => undefined),
    },
    ledger: { move: vi.fn(), release: vi.fn() },
    events: { emit: vi.fn() },
  } as unknown as BatchWriterOptions);
  return { writer, calls, settled };
}

const write = (id: string, priority: Priority): BufferedWrite<Work> => ({
  recordId: id,
  properties: { Title: 'Buyer' },
  addedAt: 0,
  item: {
    priority,
    jobs: [{ id: `job-${id}`, data: { reason: priority === 'interactive' ? 'created' : 'refresh' } }],
    planned: { kind: 'planned' },
  } as unknown as Work,
});

describe('batch writer priorities', () => {
  it("writes a person's write apart from a gathered bulk batch larger than one call", async () => {
    const { writer, calls, settled } = setup(2);
    await writer.write([write('a', 'bulk'), write('p', 'interactive'), write('b', 'bulk'), write('c', 'bulk')]);
    expect(calls).toEqual(
      expect.arrayContaining([
        { ids: ['p'], priority: 'interactive' },
        { ids: ['a', 'b', 'c'], priority: 'bulk' },
      ]),
    );
    expect(calls).toHaveLength(2);
    expect(settled.sort()).toEqual(['a', 'b', 'c', 'p']);
  });

  it('writes a batch no larger than one call once, at the priority of the person in it', async () => {
    const { writer, calls } = setup(200);
    await writer.write([write('a', 'bulk'), write('p', 'interactive'), write('b', 'bulk')]);
    expect(calls).toEqual([{ ids: ['a', 'p', 'b'], priority: 'interactive' }]);
  });
});
