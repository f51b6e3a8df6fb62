/**
 * Stored work wakes its lane: once per lane a batch of jobs went to, interactive when any of them is,
 * and only after the store took them.
 */
import { describe, expect, it } from 'vitest';
import type { Priority } from '../../src/core/limiter.js';
import { queueName } from '../../src/enrich/jobs.js';
import type { NewJob } from '../../src/enrich/ports.js';
import { wakingEnqueue } from '../../src/enrich/waking-enqueue.js';

const job = (objectType: string, recordId: string, priority: Priority): NewJob => ({
  queue: queueName('hubspot', objectType),
  dedupKey: `${objectType}:${recordId}`,
  priority,
  data: { connection: 'hubspot', objectType, recordId, reason: 'created' },
});

describe('wakingEnqueue', () => {
  it('wakes each lane the jobs went to once, interactive when any of its jobs is, once they are stored', async () => {
    const events: string[] = [];
    const port = wakingEnqueue(
      {
        enqueue: async (jobs) => {
          events.push(`stored ${jobs.length}`);
          return { inserted: jobs.length, duplicates: 0 };
        },
      },
      (connection, objectType, priority) => events.push(`wake ${connection}/${objectType} ${priority}`),
    );
    const result = await port.enqueue([
      job('contacts', '1', 'bulk'),
      job('contacts', '2', 'interactive'),
      job('contacts', '3', 'bulk'),
      job('companies', '9', 'bulk'),
    ]);
    expect(result).toEqual({ inserted: 4, duplicates: 0 });
    expect(events).toEqual(['stored 4', 'wake hubspot/contacts interactive', 'wake hubspot/companies bulk']);
  });

  it('wakes nothing when the store refuses the jobs, and passes its error on', async () => {
    const woken: string[] = [];
    const port = wakingEnqueue(
      {
        enqueue: async () => {
          throw new Error('the database is away');
        },
      },
      (_c, objectType) => woken.push(objectType),
    );
    await expect(port.enqueue([job('contacts', '1', 'bulk')])).rejects.toThrow('the database is away');
    expect(woken).toEqual([]);
  });
});
