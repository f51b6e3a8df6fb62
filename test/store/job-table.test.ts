/**
 * crm-enrich runs a few statements on pg-boss's own tables (src/store/job-table.ts, and the group
 * commit's insert in src/store/job-insert.ts). Every column they use must exist in the tables the
 * installed pg-boss creates: an upgrade that renames one fails here, not in production.
 */
import { expect, it } from 'vitest';
import { QUEUE_TABLE_COLUMNS } from '../../src/store/job-insert.js';
import { JOB_TABLE_COLUMNS } from '../../src/store/job-table.js';
import { describeEachBackend } from '../support/db.js';

describeEachBackend('pg-boss tables', (t) => {
  async function columnsOf(table: 'job' | 'queue'): Promise<Set<string>> {
    const store = await t.openStore();
    const { rows } = await store.db.query<{ column_name: string }>(
      `SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2`,
      [store.schema, table],
    );
    const columns = new Set(rows.map((r) => r.column_name));
    expect(columns.size).toBeGreaterThan(0);
    return columns;
  }

  it('the job table has every column the store uses', async () => {
    const columns = await columnsOf('job');
    expect(JOB_TABLE_COLUMNS.filter((c) => !columns.has(c))).toEqual([]);
  });

  it('the queue table has every column the job insert reads', async () => {
    const columns = await columnsOf('queue');
    expect(QUEUE_TABLE_COLUMNS.filter((c) => !columns.has(c))).toEqual([]);
  });

  it('indexes the jobs being worked on, so the look for stopped holders does not read the backlog', async () => {
    const store = await t.openStore();
    // A second instance on the same schema finds the index there and starts all the same.
    const second = await t.openStore({ schema: store.schema });
    const { rows } = await second.db.query<{ indexdef: string }>(
      `SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND tablename = 'job' AND indexname = 'job_active'`,
      [store.schema],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.indexdef).toMatch(/\(name\) WHERE \(state = 'active'/);
  });
});
