/**
 * crm-enrich runs a few statements on pg-boss's own job table (src/store/job-table.ts). Every column
 * they use must exist in the table the installed pg-boss creates: an upgrade that renames one fails
 * here, not in production.
 */
import { expect, it } from 'vitest';
import { JOB_TABLE_COLUMNS } from '../../src/store/job-table.js';
import { describeEachBackend } from '../support/db.js';

describeEachBackend('pg-boss job table', (t) => {
  it('has every column the store uses', async () => {
    const store = await t.openStore();
    const { rows } = await store.db.query<{ column_name: string }>(
      `SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'job'`,
      [store.schema],
    );
    const columns = new Set(rows.map((r) => r.column_name));
    expect(columns.size).toBeGreaterThan(0);
    expect(JOB_TABLE_COLUMNS.filter((c) => !columns.has(c))).toEqual([]);
  });
});
