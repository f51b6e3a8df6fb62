import { describe, expect, it } from 'vitest';
import { outcomeOf, type OnDemandDeps, type RunRow, type Ticket } from '../../src/enrich/on-demand/on-demand.js';

const ticket: Ticket = {
  connection: 'salesforce',
  objectType: 'contact',
  recordId: '003000000000001AAA',
  sinceAuditId: 10,
  jobId: 'job-1',
};

/**
 * A store whose run settles between two looks: `before` is what the audit shows until the job's
 * standing has been read, `after` what it shows from then on, as when the lane stores the rows and
 * completes the job while the request is looking.
 */
function settlingStore(before: RunRow[], after: RunRow[], state: string | undefined) {
  let standingRead = false;
  const deps: OnDemandDeps = {
    enqueue: { enqueue: async () => ({ ids: [] }) } as unknown as OnDemandDeps['enqueue'],
    audit: async () => (standingRead ? after : before),
    note: async () => {},
    jobs: async (_queue, ids) => {
      standingRead = true;
      return new Map(state === undefined ? [] : ids.map((id) => [id, { state }]));
    },
  };
  return deps;
}

const written = (id: number): RunRow => ({ id, jobId: 'job-1', actor: null, outcome: 'write' });

describe('what became of a request asked for from inside a CRM', () => {
  it('reads the run that settled while its job was being looked up, not "skipped"', async () => {
    const deps = settlingStore([], [written(11), written(12)], 'completed');
    expect(await outcomeOf(deps, ticket)).toEqual({ outcome: 'enriched', fieldsWritten: 2, matched: true });
  });

  it('says "skipped" for a job completed without rows, and "failed" for one parked or gone', async () => {
    expect(await outcomeOf(settlingStore([], [], 'completed'), ticket)).toMatchObject({ outcome: 'skipped' });
    expect(await outcomeOf(settlingStore([], [], 'failed'), ticket)).toMatchObject({ outcome: 'failed' });
    expect(await outcomeOf(settlingStore([], [], undefined), ticket)).toMatchObject({ outcome: 'failed' });
  });

  it('keeps waiting while the job is still queued or running', async () => {
    expect(await outcomeOf(settlingStore([], [], 'active'), ticket)).toBeUndefined();
    expect(await outcomeOf(settlingStore([], [], 'created'), ticket)).toBeUndefined();
  });

  it('ignores rows from before the request and rows of another job', async () => {
    const older: RunRow = { id: 9, jobId: 'job-1', actor: null, outcome: 'write' };
    const other: RunRow = { id: 13, jobId: 'job-2', actor: null, outcome: 'write' };
    expect(await outcomeOf(settlingStore([older, other], [older, other], 'active'), ticket)).toBeUndefined();
  });
});
