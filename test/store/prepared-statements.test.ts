/**
 * On a Postgres server, statements with parameters run as named prepared statements: each text is
 * parsed and planned once per connection, not on every call (the queue's insert runs per delivery).
 */
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { poolDb } from '../../src/store/db.js';
import { SERVER_URL, serverUnavailable } from '../support/db.js';

const skip = await serverUnavailable();
if (skip) console.warn(`skipping prepared statement tests: ${skip}`);

describe.skipIf(skip)('pool queries', () => {
  // One connection, so the statements prepared are visible to the next query.
  const pool = new pg.Pool({ connectionString: SERVER_URL, max: 1 });
  const db = poolDb(pool);
  afterAll(() => db.close());

  const prepared = async () =>
    (await db.query<{ statement: string }>('SELECT statement FROM pg_prepared_statements')).rows.map(
      (r) => r.statement,
    );

  it('prepares a statement with parameters once and reuses it, in and out of transactions', async () => {
    const text = 'SELECT $1::int + 1 AS n /* prepared-statements test */';
    expect((await db.query<{ n: number }>(text, [1])).rows[0]!.n).toBe(2);
    expect((await db.query<{ n: number }>(text, [41])).rows[0]!.n).toBe(42);
    expect(await db.transaction((tx) => tx.query<{ n: number }>(text, [9]))).toEqual({ rows: [{ n: 10 }] });
    expect((await prepared()).filter((s) => s === text)).toHaveLength(1);
  });

  it('leaves a statement without parameters unprepared, so scripts of several statements still run', async () => {
    await db.exec('SELECT 1; SELECT 2');
    const text = 'SELECT 7 AS n /* unprepared */';
    expect((await db.query<{ n: number }>(text)).rows[0]!.n).toBe(7);
    expect(await prepared()).not.toContain(text);
  });
});
