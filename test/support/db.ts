/**
 * Databases for tests: the store's suites run once on PGlite and once on the Postgres server
 * (TEST_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test, or an embedded server that
 * test/support/global-postgres.ts starts when none answers). Each test gets a schema of
 * its own, dropped afterwards; PGlite is slow to start, so one instance serves a whole test file, loaded
 * from the run's empty database (test/support/pglite.ts).
 */
import { randomBytes } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe } from 'vitest';
import type { Db } from '../../src/store/db.js';
import { openStore, type Store, type StoreOptions } from '../../src/store/store.js';
import { freshPglite } from './pglite.js';
import { DEFAULT_SERVER_URL, serverUnavailable as probe } from './server-probe.js';

/** The Postgres server of the tests: TEST_DATABASE_URL, or the one the global setup started when none answered. */
export const SERVER_URL = process.env.TEST_DATABASE_URL ?? DEFAULT_SERVER_URL;

export type BackendName = 'pglite' | 'pg';

/** Why the server half is skipped, or undefined when the server answers. */
export function serverUnavailable(url = SERVER_URL): Promise<string | undefined> {
  return probe(url);
}

export function uniqueSchema(prefix = 't'): string {
  return `${prefix}_${randomBytes(6).toString('hex')}`;
}

let shared: { pglite: Promise<PGlite>; users: number } | undefined;

/** The PGlite instance of this test file; release it in afterAll. */
export function acquirePglite(): Promise<PGlite> {
  shared ??= { pglite: freshPglite(), users: 0 };
  shared.users++;
  return shared.pglite;
}

export async function releasePglite(): Promise<void> {
  if (!shared) return;
  shared.users--;
  if (shared.users > 0) return;
  const { pglite } = shared;
  shared = undefined;
  await (await pglite).close();
}

export interface TestDb {
  readonly backend: BackendName;
  /** Opens a store on a fresh schema (or on `options.schema`, to open a second instance on the same one). */
  openStore(options?: Omit<StoreOptions, 'databaseUrl' | 'pglite' | 'dataDir'>): Promise<Store>;
  /** The PGlite of this file (pglite backend only). */
  pglite(): PGlite;
  /** Runs SQL on this file's database outside any store (on pg, one connection of its own). */
  exec(sql: string): Promise<void>;
}

/**
 * Registers hooks that give each test its own schema and close every store it opened. Call it
 * inside a describe block.
 */
export function useTestDb(backend: BackendName): TestDb {
  let pglite: PGlite | undefined;
  const opened: Store[] = [];
  const schemas = new Set<string>();

  beforeAll(async () => {
    if (backend === 'pglite') pglite = await acquirePglite();
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((s) => s.close()));
    await dropSchemas([...schemas]);
    schemas.clear();
  });
  afterAll(async () => {
    if (backend === 'pglite') await releasePglite();
  });

  async function exec(sql: string): Promise<void> {
    if (pglite) {
      await pglite.exec(sql);
      return;
    }
    const client = new pg.Client({ connectionString: SERVER_URL });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  }

  async function dropSchemas(names: string[]): Promise<void> {
    if (names.length === 0) return;
    await exec(names.map((n) => `DROP SCHEMA IF EXISTS "${n}" CASCADE;`).join(' '));
  }

  return {
    backend,
    async openStore(options = {}) {
      const schema = options.schema ?? uniqueSchema();
      schemas.add(schema);
      const store = await openStore({
        ...options,
        schema,
        ...(backend === 'pg' ? { databaseUrl: SERVER_URL, poolSize: options.poolSize ?? 4 } : { pglite }),
      });
      opened.push(store);
      return store;
    },
    pglite() {
      if (!pglite) throw new Error('pglite() is only available on the pglite backend, inside a test');
      return pglite;
    },
    exec,
  };
}

/**
 * Fills a store's state table with `rows` synthetic records in one statement (two thirds contacts,
 * one third companies, next refresh spread over 800 days around now) and ANALYZEs it.
 */
export async function fillSyntheticState(db: Db, schema: string, rows: number): Promise<void> {
  await db.query(
    `INSERT INTO "${schema}".enrichment_state (connection, object_type, record_id, status, next_refresh_at)
     SELECT 'default', CASE WHEN g % 3 = 0 THEN 'company' ELSE 'contact' END, g::text, 'enriched',
            now() - interval '400 days' + (g % 800) * interval '1 day'
     FROM generate_series(1, $1::int) AS g`,
    [rows],
  );
  await db.query(`ANALYZE "${schema}".enrichment_state`);
}

const serverReason = await serverUnavailable();

/**
 * Declares the same suite for PGlite and for the server. The server half is skipped, with the
 * reason in its title and on stderr, only when no server answers.
 */
export function describeEachBackend(title: string, suite: (db: TestDb) => void): void {
  describe(`${title} [pglite]`, () => suite(useTestDb('pglite')));
  if (serverReason) {
    console.warn(`skipping "${title} [pg]": ${serverReason}`);
    describe.skip(`${title} [pg] (skipped: ${serverReason})`, () => undefined);
  } else {
    describe(`${title} [pg]`, () => suite(useTestDb('pg')));
  }
}
