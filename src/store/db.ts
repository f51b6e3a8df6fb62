/**
 * The one database interface the store speaks: a Postgres server through a pg.Pool, or the embedded
 * PGlite. Both give the same SQL dialect, so every query in this folder runs on either.
 */
import type { PGlite, Transaction } from '@electric-sql/pglite';
import type pg from 'pg';

export interface Db {
  readonly backend: 'pg' | 'pglite';
  query<R = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<{ rows: R[] }>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
  /** Runs `fn` in one transaction; it commits when `fn` resolves and rolls back when it throws. */
  transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/**
 * Statements with parameters run as named prepared statements, so Postgres parses and plans each text
 * once per connection instead of once per call (the queue's insert is a 3 KB statement run for every
 * webhook delivery). Names are given to the first few hundred texts only: a text built per call would
 * otherwise leave a prepared statement behind on every connection.
 */
const statementNames = new Map<string, string>();
const MAX_NAMED_STATEMENTS = 500;

function statement(sql: string, params: unknown[] | undefined): string | pg.QueryConfig {
  if (!params || params.length === 0) return sql;
  let name = statementNames.get(sql);
  if (name === undefined) {
    if (statementNames.size >= MAX_NAMED_STATEMENTS) return { text: sql, values: params };
    name = `ce_${statementNames.size.toString(36)}`;
    statementNames.set(sql, name);
  }
  return { name, text: sql, values: params };
}

/** A Db over a pg.Pool. `close` ends the pool only when `owned` is true. */
export function poolDb(pool: pg.Pool, owned = true): Db {
  return {
    backend: 'pg',
    async query<R>(sql: string, params?: unknown[]) {
      const q = statement(sql, params);
      const result = typeof q === 'string' ? await pool.query(q) : await pool.query(q);
      return { rows: result.rows as R[] };
    },
    async exec(sql: string) {
      await pool.query(sql);
    },
    async transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      let broken = false;
      try {
        await client.query('BEGIN');
        const result = await fn(clientDb(client));
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {
          broken = true;
        });
        throw error;
      } finally {
        // A connection whose rollback failed is in an unknown state: drop it rather than reuse it.
        client.release(broken);
      }
    },
    async close() {
      if (owned) await pool.end();
    },
  };
}

function clientDb(client: pg.PoolClient): Db {
  return {
    backend: 'pg',
    async query<R>(sql: string, params?: unknown[]) {
      const q = statement(sql, params);
      const result = typeof q === 'string' ? await client.query(q) : await client.query(q);
      return { rows: result.rows as R[] };
    },
    async exec(sql: string) {
      await client.query(sql);
    },
    transaction: (fn) => nested(clientDb(client), fn),
    close: async () => undefined,
  };
}

/** A Db over PGlite. PGlite is one session: its transaction holds a lock that queues every other query. */
export function pgliteDb(pglite: PGlite, owned = true): Db {
  return {
    backend: 'pglite',
    async query<R>(sql: string, params?: unknown[]) {
      const result = await pglite.query<R>(sql, params);
      return { rows: result.rows };
    },
    async exec(sql: string) {
      await pglite.exec(sql);
    },
    transaction: <T>(fn: (tx: Db) => Promise<T>) => pglite.transaction((tx) => fn(transactionDb(tx))),
    async close() {
      if (owned && !pglite.closed) await pglite.close();
    },
  };
}

function transactionDb(tx: Transaction): Db {
  return {
    backend: 'pglite',
    async query<R>(sql: string, params?: unknown[]) {
      const result = await tx.query<R>(sql, params);
      return { rows: result.rows };
    },
    async exec(sql: string) {
      await tx.exec(sql);
    },
    transaction: (fn) => nested(transactionDb(tx), fn),
    close: async () => undefined,
  };
}

/** Inside a transaction a nested one is a savepoint, so a caller can compose store calls freely. */
async function nested<T>(db: Db, fn: (tx: Db) => Promise<T>): Promise<T> {
  const name = `sp_${Math.random().toString(36).slice(2, 10)}`;
  await db.query(`SAVEPOINT ${name}`);
  try {
    const result = await fn(db);
    await db.query(`RELEASE SAVEPOINT ${name}`);
    return result;
  } catch (error) {
    await db.query(`ROLLBACK TO SAVEPOINT ${name}`);
    throw error;
  }
}
