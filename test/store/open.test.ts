import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { poolDb } from '../../src/store/db.js';
import { listMigrations, migrate } from '../../src/store/migrate.js';
import { lockDirectory } from '../../src/store/pglite-lock.js';
import { openStore } from '../../src/store/store.js';
import { describeEachBackend, SERVER_URL, serverUnavailable, uniqueSchema } from '../support/db.js';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'crm-enrich-store-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('embedded database lock file', () => {
  it('refuses a second opener of the same directory with a message that says what to do', async () => {
    const dataDir = tempDir();
    const store = await openStore({ dataDir, schema: 'crm_enrich' });
    try {
      expect(readFileSync(join(dataDir, 'pglite.lock'), 'utf8')).toBe(String(process.pid));
      await expect(openStore({ dataDir })).rejects.toMatchObject({
        code: 'store_locked',
        message: expect.stringMatching(/already open.*DATABASE_URL/s),
      });
      await store.queue.enqueue('q', [{ data: { connection: 'c', objectType: 'o', recordId: '1' } }]);
      // Memory: the embedded database keeps its shared buffers resident, so it asks for little.
      const { rows } = await store.db.query<{ shared_buffers: string }>('SHOW shared_buffers');
      expect(rows[0]?.shared_buffers).toBe('16MB');
    } finally {
      await store.close();
    }
    expect(existsSync(join(dataDir, 'pglite.lock'))).toBe(false);
    // Closed and reopened, the data is still there.
    const again = await openStore({ dataDir });
    try {
      expect(await again.queue.depth('q')).toBe(1);
    } finally {
      await again.close();
    }
  });

  it('refuses a lock held by another live process and takes over one left by a dead process', () => {
    const lockPath = join(tempDir(), 'pglite.lock');
    writeFileSync(lockPath, String(process.ppid));
    expect(() => lockDirectory(lockPath)).toThrow(new RegExp(`process ${process.ppid}`));

    writeFileSync(lockPath, '2147483646');
    const lock = lockDirectory(lockPath);
    expect(readFileSync(lockPath, 'utf8')).toBe(String(process.pid));
    lock.release();
    expect(existsSync(lockPath)).toBe(false);
  });

  it('says which settings to give when there is neither a URL nor a data directory', async () => {
    await expect(openStore({})).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(/DATABASE_URL.*CRM_ENRICH_DATA_DIR/),
    });
    await expect(openStore({ dataDir: tempDir(), schema: 'Robert; DROP' })).rejects.toMatchObject({
      code: 'invalid_schema',
    });
  });
});

describeEachBackend('migrations', (t) => {
  it('are idempotent: a second run applies nothing and keeps the data', async () => {
    const store = await t.openStore();
    await store.counters.increment('lookups', 3, '2026-01-01');
    const second = await migrate(store.db, store.schema);
    expect(second.applied).toEqual([]);
    expect(second.alreadyApplied).toEqual(listMigrations().map((m) => m.version));
    expect(await store.counters.get('lookups', '2026-01-01')).toBe(3);
    // A second instance starting on the same schema (ours and the queue's migrations again) is fine too.
    const other = await t.openStore({ schema: store.schema });
    expect(await other.counters.get('lookups', '2026-01-01')).toBe(3);
  });
});

const serverReason = await serverUnavailable();
describe.skipIf(!!serverReason)(
  `migrations racing on the server${serverReason ? ` (skipped: ${serverReason})` : ''}`,
  () => {
    it('apply once when several instances start together', async () => {
      const schema = uniqueSchema('race');
      const pools = Array.from({ length: 4 }, () => new pg.Pool({ connectionString: SERVER_URL, max: 2 }));
      try {
        const results = await Promise.all(pools.map((pool) => migrate(poolDb(pool, false), schema)));
        const all = listMigrations().map((m) => m.version);
        expect(results.filter((r) => r.applied.length > 0)).toHaveLength(1);
        expect(results.flatMap((r) => r.applied)).toEqual(all);
        const { rows } = await pools[0]!.query(`SELECT count(*)::int AS n FROM "${schema}".schema_migration`);
        expect(rows[0].n).toBe(all.length);
      } finally {
        await pools[0]!.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await Promise.all(pools.map((p) => p.end()));
      }
    });

    it('start whole stores (queue schema included) together without error', async () => {
      const schema = uniqueSchema('race');
      const stores = await Promise.all(
        Array.from({ length: 3 }, () => openStore({ databaseUrl: SERVER_URL, schema, poolSize: 2 })),
      );
      try {
        await stores[0]!.queue.enqueue('q', [{ data: { connection: 'c', objectType: 'o', recordId: '1' } }]);
        expect(await stores[2]!.queue.depth('q')).toBe(1);
      } finally {
        await Promise.all(stores.map((s) => s.close()));
        const pool = new pg.Pool({ connectionString: SERVER_URL, max: 1 });
        await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await pool.end();
      }
    });
  },
);
