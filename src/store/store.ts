/**
 * Opens everything crm-enrich remembers: a Postgres server when a URL is given, otherwise the
 * embedded PGlite in `<dataDir>/pglite`. Migrations run before anything else is used.
 */
import { ConnectionAccounts } from './connection-accounts.js';
import { DomainClaims } from './domain-claims.js';
import { CreatedRecords } from './created-records.js';
import { PendingWrites } from './pending-writes.js';
import { DiscoveryStore } from './discovery.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { logger } from '../logger.js';
import { AuditLog, type AuditRow } from './audit-log.js';
import { DailyCounters } from './daily-counters.js';
import { DailyReservations } from './daily-reservations.js';
import { pgliteDb, poolDb, type Db } from './db.js';
import { RecordStateStore, type RecordState, type RecordKey } from './enrichment-state.js';
import { Erasure } from './erasure.js';
import { JobChangeStore } from './job-changes.js';
import { StoreError } from './errors.js';
import { defaultCacheTtls, LookupCache, type CacheTtls } from './lookup-cache.js';
import { MappingVersions } from './mapping-versions.js';
import { McpOAuthStore } from './mcp-oauth.js';
import { assertSchemaName, migrate } from './migrate.js';
import { lockDirectory, type DirectoryLock } from './pglite-lock.js';
import { seedFromTemplate } from './pglite-template.js';
import { YieldingPGlite } from './yielding-pglite.js';
import { defaultQueueSettings, JobQueue, type QueueSettings } from './queue.js';
import { PostgresRunCoordinator } from './run-coordinator.js';
import { Settings } from './settings.js';
import { FeedPositions } from './feed-positions.js';
import { StatSeries } from './stat-series.js';
import { FieldCoverage } from './field-coverage.js';
import { HealthRuns } from './health-runs.js';
import { WorkflowCallbacks } from './workflow-callbacks.js';

const log = logger('store');

export const DEFAULT_SCHEMA = 'crm_enrich';

export interface StoreOptions {
  /** A postgres:// URL; without it the embedded PGlite is used. */
  databaseUrl?: string;
  /** Where the embedded database lives (`<dataDir>/pglite`); needed when there is no URL. */
  dataDir?: string;
  /** An open PGlite the caller owns and closes (tests share one per file). No lock file is taken. */
  pglite?: PGlite;
  /** Our tables and the queue's live in this schema. */
  schema?: string;
  /** Connections in the server pool (queue and store share it). */
  poolSize?: number;
  queue?: Partial<QueueSettings>;
  cacheTtls?: Partial<CacheTtls>;
}

export interface Store {
  readonly backend: 'pg' | 'pglite';
  readonly schema: string;
  readonly db: Db;
  readonly queue: JobQueue;
  /** The CRM account each connection is on: every row of a connection's state names it (see connection-accounts.ts). */
  readonly accounts: ConnectionAccounts;
  readonly state: RecordStateStore;
  readonly cache: LookupCache;
  readonly audit: AuditLog;
  readonly mappings: MappingVersions;
  /** Pass to node-cron (`setRunCoordinator` or the task's `runCoordinator`) so one instance runs each tick. */
  readonly cron: PostgresRunCoordinator;
  readonly counters: DailyCounters;
  /** Shares of daily limits taken before they are spent (discovery's records, partner credits). */
  readonly reservations: DailyReservations;
  readonly erasure: Erasure;
  readonly settings: Settings;
  /** How far each event feed (HubSpot's webhooks journal) has been read, per connection and account. */
  readonly feeds: FeedPositions;
  readonly companies: DomainClaims;
  /** Records crm-enrich created in a CRM: their creation events are its own. */
  readonly created: CreatedRecords;
  /** Identity values being written, until settled: their change events are the service's own. */
  readonly pendingWrites: PendingWrites;
  readonly discovery: DiscoveryStore;
  /** Clients, consents, codes and tokens of the MCP server's authorization server. */
  readonly mcpAuth: McpOAuthStore;
  /** Per-minute totals and gauge samples the admin page charts. */
  readonly series: StatSeries;
  /** Share of worked-on records with each mapped property filled, before and after (from the audit trail). */
  readonly coverage: FieldCoverage;
  /** Data-health scans of whole CRM objects: the running one's cursor, and the finished ones for the trend. */
  readonly health: HealthRuns;
  /** Workflow steps (HubSpot custom actions) to complete through the CRM's callback once their run settles. */
  readonly workflowCallbacks: WorkflowCallbacks;
  /** Each person record's known role, and the job changes detected (issue 33). */
  readonly jobChanges: JobChangeStore;
  /** One record's state and newest audit rows, read from one snapshot: never a run's state without its rows. */
  recordView(key: RecordKey, limit: number): Promise<{ state: RecordState | undefined; audit: AuditRow[] }>;
  close(): Promise<void>;
}

interface Opened {
  db: Db;
  connection: { pool: pg.Pool } | { pglite: PGlite };
  lock?: DirectoryLock;
}

/** Where the embedded database of a data directory lives, and the lock file that keeps it to one process. */
export function embeddedDatabaseDir(dataDir: string): string {
  return join(dataDir, 'pglite');
}
export function embeddedDatabaseLock(dataDir: string): string {
  return `${embeddedDatabaseDir(dataDir)}.lock`;
}

async function openDatabase(options: StoreOptions): Promise<Opened> {
  if (options.databaseUrl) {
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: options.poolSize ?? 10 });
    // An idle connection the server drops must not take the process down; the next query reconnects.
    pool.on('error', (error) => log.warn({ err: error }, 'an idle database connection failed'));
    return { db: poolDb(pool), connection: { pool } };
  }
  if (options.pglite) return { db: pgliteDb(options.pglite, false), connection: { pglite: options.pglite } };
  if (!options.dataDir) {
    throw new StoreError(
      'invalid_input',
      'Set DATABASE_URL to a Postgres server, or CRM_ENRICH_DATA_DIR for the embedded database.',
      { field: 'dataDir' },
    );
  }
  const dir = embeddedDatabaseDir(options.dataDir);
  const lock = lockDirectory(embeddedDatabaseLock(options.dataDir));
  try {
    // Postgres' default 128 MB of shared buffers is more than an embedded database of one team's
    // records uses, and PGlite keeps all of it resident: 16 MB saves about 110 MB of memory.
    const options = { postgresqlconf: [`shared_buffers=${EMBEDDED_SHARED_BUFFERS}`] };
    if (!existsSync(join(dir, 'PG_VERSION')) && !seedFromTemplate(dir)) {
      // No template made at install time (see pglite-template.ts): initdb runs here, in a second
      // WebAssembly instance that stays in memory as long as the database is open (about 250 MB).
      // Opened again, the database runs without it.
      log.info({ dir }, 'making the embedded database (no template was made at install time)');
      await (await PGlite.create(dir, options)).close();
    }
    const pglite = await YieldingPGlite.open(dir, options);
    return { db: pgliteDb(pglite), connection: { pglite }, lock };
  } catch (error) {
    lock.release();
    throw error;
  }
}

/** Shared buffers of the embedded database (see openDatabase). */
const EMBEDDED_SHARED_BUFFERS = '16MB';

export async function openStore(options: StoreOptions): Promise<Store> {
  const schema = assertSchemaName(options.schema ?? DEFAULT_SCHEMA);
  const { db, connection, lock } = await openDatabase(options);
  let queue: JobQueue | undefined;
  try {
    await migrate(db, schema);
    queue = await JobQueue.start(db, schema, { ...defaultQueueSettings, ...options.queue }, connection);
  } catch (error) {
    await db.close().catch(() => undefined);
    lock?.release();
    throw error;
  }
  const jobQueue = queue;
  const accounts = new ConnectionAccounts(db, schema);
  const state = new RecordStateStore(db, schema, accounts);
  const audit = new AuditLog(db, schema, accounts);
  let closed = false;
  return {
    backend: db.backend,
    schema,
    db,
    queue: jobQueue,
    accounts,
    state,
    cache: new LookupCache(db, schema, { ...defaultCacheTtls, ...options.cacheTtls }),
    audit,
    mappings: new MappingVersions(db, schema),
    cron: new PostgresRunCoordinator(db, schema),
    counters: new DailyCounters(db, schema),
    reservations: new DailyReservations(db, schema),
    erasure: new Erasure(db, schema, accounts),
    settings: new Settings(db, schema),
    feeds: new FeedPositions(db, schema, accounts),
    companies: new DomainClaims(db, schema, accounts),
    created: new CreatedRecords(db, schema, accounts),
    pendingWrites: new PendingWrites(db, schema, accounts),
    discovery: new DiscoveryStore(db, schema, accounts),
    mcpAuth: new McpOAuthStore(db, schema),
    series: new StatSeries(db, schema),
    coverage: new FieldCoverage(db, schema, accounts),
    health: new HealthRuns(db, schema, accounts),
    workflowCallbacks: new WorkflowCallbacks(db, schema, accounts),
    jobChanges: new JobChangeStore(db, schema, audit, accounts),
    recordView(key, limit) {
      return db.transaction(async (tx) => {
        await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
        return { state: await state.get(key, tx), audit: await audit.forRecord(key, { limit }, tx) };
      });
    },
    async close() {
      if (closed) return;
      closed = true;
      try {
        await jobQueue.stop();
        await db.close();
      } finally {
        lock?.release();
      }
    },
  };
}
