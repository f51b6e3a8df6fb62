/**
 * The durable job queue: pg-boss in the store's schema, plus a table of every event key ever
 * received. pg-boss singleton keys only hold while a job is live, and the CRMs redeliver events
 * hours after the first delivery was processed, so deduplication is a unique index of our own,
 * written in the same transaction as the jobs: an event is either stored with its job or not at all.
 */
import { createHash } from 'node:crypto';
import type { PGlite } from '@electric-sql/pglite';
import type pg from 'pg';
import { PgBoss, fromPglite, type Db as BossDb, type JobWithMetadata } from 'pg-boss';
import type { Priority } from '../core/limiter.js';
import { logger } from '../logger.js';
import type { Db } from './db.js';
import { StoreError } from './errors.js';

const log = logger('store.queue');

/** Where jobs go after their last attempt; one for all queues, each entry remembers its source. */
export const DEAD_LETTER_QUEUE = 'dead_letter';

const PRIORITY: Record<Priority, number> = { interactive: 10, bulk: 0 };

export interface QueueSettings {
  /** Attempts before a job is parked in the dead letter, the first one included. */
  maxAttempts: number;
  /** First retry delay; each later one doubles (with jitter) up to retryDelayMaxSeconds. */
  retryDelaySeconds: number;
  retryDelayMaxSeconds: number;
  /** A job active longer than this is taken to have lost its worker and is handed out again. */
  expireInSeconds: number;
  /** How often expired jobs are looked for. */
  superviseIntervalSeconds: number;
  deadLetterRetentionDays: number;
}

export const defaultQueueSettings: QueueSettings = {
  maxAttempts: 5,
  retryDelaySeconds: 10,
  retryDelayMaxSeconds: 3600,
  expireInSeconds: 300,
  superviseIntervalSeconds: 30,
  deadLetterRetentionDays: 30,
};

/** Every job is about one CRM record; erasure finds jobs by these fields. */
export interface RecordRef {
  connection: string;
  objectType: string;
  recordId: string;
}

export interface JobInput<T extends RecordRef = RecordRef> {
  data: T;
  /** The same key twice, ever (within the received-event retention), makes one job. */
  dedupKey?: string;
  priority?: Priority;
  startAfter?: Date;
}

export interface EnqueueResult {
  ids: string[];
  enqueued: number;
  duplicates: number;
}

export interface ClaimedJob<T extends RecordRef = RecordRef> {
  id: string;
  queue: string;
  data: T;
  /** 1 on the first attempt. */
  attempt: number;
  retryCount: number;
  priority: number;
  createdAt: Date;
}

export interface DeadLetter<T extends RecordRef = RecordRef> {
  id: string;
  queue: string;
  data: T;
  error: unknown;
  attempts: number;
  firstQueuedAt: Date | null;
  deadAt: Date;
}

export interface QueueCounts {
  queue: string;
  created: number;
  retry: number;
  active: number;
  completed: number;
  failed: number;
  cancelled: number;
  /** Jobs waiting to run: created plus retry. */
  depth: number;
}

/** `enrich.hubspot.contact`; a connection other than `default` gets its own queue. */
export function enrichQueueName(source: string, connection: string, objectType: string): string {
  const parts = connection === 'default' ? ['enrich', source, objectType] : ['enrich', source, connection, objectType];
  return parts.map((p) => p.toLowerCase().replace(/[^\w-]/g, '_')).join('.');
}

export function hashEventKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export class JobQueue {
  private readonly ready = new Map<string, Promise<void>>();

  private constructor(
    private readonly db: Db,
    private readonly schema: string,
    private readonly boss: PgBoss,
    readonly settings: QueueSettings,
  ) {}

  /**
   * Installs or upgrades pg-boss in `schema` (under its own advisory lock) and starts its supervisor.
   * pg-boss shares the store's connections: the pool on a server, the one PGlite session otherwise.
   */
  static async start(db: Db, schema: string, settings: QueueSettings, connection: { pool: pg.Pool } | { pglite: PGlite }): Promise<JobQueue> {
    // pg-boss sends multi-statement scripts and reads pg's raw (array) results, so it gets the pool itself.
    const bossDb: BossDb = 'pglite' in connection
      ? fromPglite(connection.pglite)
      : { executeSql: (text: string, values?: unknown[]) => connection.pool.query(text, values) };
    const boss = new PgBoss({
      db: bossDb,
      schema,
      backend: 'pglite' in connection ? 'pglite' : 'postgres',
      schedule: false,
      superviseIntervalSeconds: settings.superviseIntervalSeconds,
      monitorIntervalSeconds: settings.superviseIntervalSeconds,
    });
    boss.on('error', (error) => log.warn({ err: error }, 'queue maintenance failed; it is retried on the next pass'));
    await boss.start();
    const queue = new JobQueue(db, schema, boss, settings);
    await queue.ensureQueue(DEAD_LETTER_QUEUE);
    return queue;
  }

  /** Creates the queue on first use with the retry, expiry and dead-letter policy. */
  ensureQueue(name: string): Promise<void> {
    let pending = this.ready.get(name);
    if (!pending) {
      pending = this.createQueue(name);
      pending.catch(() => this.ready.delete(name));
      this.ready.set(name, pending);
    }
    return pending;
  }

  private async createQueue(name: string): Promise<void> {
    if (!/^[\w.\-/]+$/.test(name)) {
      throw new StoreError('invalid_input', `Queue name "${name}" may hold only letters, digits, _ . - and /.`, { queue: name });
    }
    const s = this.settings;
    if (name === DEAD_LETTER_QUEUE) {
      await this.boss.createQueue(name, { retentionSeconds: s.deadLetterRetentionDays * 86_400 });
    } else {
      await this.boss.createQueue(name, {
        retryLimit: s.maxAttempts - 1,
        retryDelay: s.retryDelaySeconds,
        retryBackoff: true,
        retryDelayMax: s.retryDelayMaxSeconds,
        expireInSeconds: s.expireInSeconds,
        deadLetter: DEAD_LETTER_QUEUE,
      });
    }
    // pg-boss reads its queue cache on the pool before inserting; warming it here keeps that read
    // out of enqueue's transaction, where on PGlite (one session) it would wait on itself.
    await this.boss.insert(name, []);
  }

  /**
   * Stores jobs in one transaction: event keys seen before (in this batch or ever) are dropped,
   * the rest become jobs. Safe to call again with the same batch after a failure.
   */
  async enqueue<T extends RecordRef>(queue: string, jobs: JobInput<T>[]): Promise<EnqueueResult> {
    await this.ensureQueue(queue);
    const byKey = new Map<string, JobInput<T>>();
    const unkeyed: JobInput<T>[] = [];
    for (const job of jobs) {
      if (job.dedupKey === undefined) unkeyed.push(job);
      else if (!byKey.has(hashEventKey(job.dedupKey))) byKey.set(hashEventKey(job.dedupKey), job);
    }
    if (byKey.size + unkeyed.length === 0) return { ids: [], enqueued: 0, duplicates: 0 };
    return this.db.transaction(async (tx) => {
      let fresh = unkeyed;
      if (byKey.size > 0) {
        const events = [...byKey].map(([key_hash, j]) => ({
          key_hash, connection: j.data.connection, object_type: j.data.objectType, record_id: j.data.recordId,
        }));
        const { rows } = await tx.query<{ key_hash: string }>(
          `INSERT INTO "${this.schema}".received_event (key_hash, connection, object_type, record_id, queue)
           SELECT key_hash, connection, object_type, record_id, $2
           FROM jsonb_to_recordset($1::jsonb) AS e(key_hash text, connection text, object_type text, record_id text)
           ON CONFLICT (key_hash) DO NOTHING RETURNING key_hash`,
          [JSON.stringify(events), queue],
        );
        fresh = [...unkeyed, ...rows.map((r) => byKey.get(r.key_hash) as JobInput<T>)];
      }
      if (fresh.length === 0) return { ids: [], enqueued: 0, duplicates: jobs.length };
      const ids = await this.boss.insert(
        queue,
        fresh.map((j) => ({ data: j.data, priority: PRIORITY[j.priority ?? 'interactive'], startAfter: j.startAfter })),
        { db: { executeSql: (text: string, values?: unknown[]) => tx.query(text, values) }, returnId: true },
      );
      return { ids: ids ?? [], enqueued: fresh.length, duplicates: jobs.length - fresh.length };
    });
  }

  /**
   * Claims up to `limit` waiting jobs of one queue, highest priority first, for one batch of work.
   * Each must then be completed or failed; one left alone past expireInSeconds is handed out again.
   */
  async claim<T extends RecordRef = RecordRef>(queue: string, limit: number): Promise<ClaimedJob<T>[]> {
    await this.ensureQueue(queue);
    const jobs = (await this.boss.fetch<T>(queue, { batchSize: limit, includeMetadata: true })) as JobWithMetadata<T>[];
    return jobs.map((j) => ({
      id: j.id,
      queue,
      data: j.data,
      attempt: j.retryCount + 1,
      retryCount: j.retryCount,
      priority: j.priority,
      createdAt: j.createdOn,
    }));
  }

  /** Marks claimed jobs done; returns how many were still this worker's to settle. */
  async complete(queue: string, jobs: Pick<ClaimedJob, 'id' | 'retryCount'>[]): Promise<number> {
    if (jobs.length === 0) return 0;
    const result = await this.boss.complete(queue, jobs.map((j) => ({ id: j.id, retryCount: j.retryCount })));
    return affected(result);
  }

  /**
   * Fails one claimed job: retried later with backoff, or parked in the dead letter after the last
   * attempt. An error that says it cannot succeed on retry (`retryable: false`) is parked at once.
   */
  async fail(queue: string, job: Pick<ClaimedJob, 'id' | 'retryCount'>, error: unknown): Promise<boolean> {
    if (isFinal(error)) return this.park(queue, job, error);
    const result = await this.boss.fail(queue, { id: job.id, retryCount: job.retryCount }, describeError(error));
    return affected(result) > 0;
  }

  /** Sends a claimed job straight to the dead letter with this error, whatever attempts it has left. */
  async park(queue: string, job: Pick<ClaimedJob, 'id' | 'retryCount'>, error: unknown): Promise<boolean> {
    // With no retries left, pg-boss's own fail moves the job to the dead letter and keeps the error.
    await this.db.query(
      `UPDATE "${this.schema}".job SET retry_limit = retry_count WHERE name = $1 AND id = $2 AND retry_count = $3 AND state = 'active'`,
      [queue, job.id, job.retryCount],
    );
    const result = await this.boss.fail(queue, { id: job.id, retryCount: job.retryCount }, describeError(error));
    return affected(result) > 0;
  }

  /**
   * Puts claimed jobs back without spending an attempt (a budget pause, a CRM rate limit), to be
   * handed out again after `delayMs`. Returns how many were still this worker's.
   */
  async release(queue: string, jobs: Pick<ClaimedJob, 'id' | 'retryCount'>[], delayMs: number): Promise<number> {
    if (jobs.length === 0) return 0;
    // pg-boss counts an attempt when it hands out a job that was started before; clearing
    // started_on returns the job as if never claimed.
    const { rows } = await this.db.query<{ n: number }>(
      `WITH back AS (
         UPDATE "${this.schema}".job j
         SET state = 'created', started_on = NULL, heartbeat_on = NULL,
             start_after = now() + make_interval(secs => $3::double precision / 1000)
         FROM jsonb_to_recordset($2::jsonb) AS a(id uuid, "retryCount" int)
         WHERE j.name = $1 AND j.id = a.id AND j.retry_count = a."retryCount" AND j.state = 'active'
         RETURNING 1)
       SELECT count(*)::int AS n FROM back`,
      [queue, JSON.stringify(jobs.map((j) => ({ id: j.id, retryCount: j.retryCount }))), Math.max(0, delayMs)],
    );
    return rows[0]?.n ?? 0;
  }

  /** Extends the claim of jobs still being worked on (long batches). */
  async touch(queue: string, jobs: Pick<ClaimedJob, 'id' | 'retryCount'>[]): Promise<void> {
    if (jobs.length > 0) await this.boss.touch(queue, jobs.map((j) => ({ id: j.id, retryCount: j.retryCount })));
  }

  /** Counts by state for every queue (the dead letter included); depth is what waits to run. */
  async counts(): Promise<QueueCounts[]> {
    const { rows } = await this.db.query<{ queue: string; state: string; n: number }>(
      `SELECT name AS queue, state::text AS state, count(*)::int AS n FROM "${this.schema}".job GROUP BY name, state ORDER BY name`,
    );
    const byQueue = new Map<string, QueueCounts>();
    for (const row of rows) {
      const c = byQueue.get(row.queue) ?? { queue: row.queue, created: 0, retry: 0, active: 0, completed: 0, failed: 0, cancelled: 0, depth: 0 };
      if (row.state in c) (c as unknown as Record<string, number>)[row.state] = row.n;
      c.depth = c.created + c.retry;
      byQueue.set(row.queue, c);
    }
    return [...byQueue.values()];
  }

  async depth(queue: string): Promise<number> {
    const { rows } = await this.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM "${this.schema}".job WHERE name = $1 AND state < 'active'`,
      [queue],
    );
    return rows[0]?.n ?? 0;
  }

  /** Jobs that used up their attempts, newest first, with the last error each one met. */
  async deadLetters<T extends RecordRef = RecordRef>(options: { queue?: string; limit?: number } = {}): Promise<DeadLetter<T>[]> {
    const { rows } = await this.db.query<{
      id: string; source_name: string; data: T; source_output: unknown; source_retry_count: number | null;
      source_created_on: Date | null; created_on: Date;
    }>(
      `SELECT id, source_name, data, source_output, source_retry_count, source_created_on, created_on
       FROM "${this.schema}".job
       WHERE name = $1 AND state < 'active' AND ($2::text IS NULL OR source_name = $2)
       ORDER BY created_on DESC, id LIMIT $3`,
      [DEAD_LETTER_QUEUE, options.queue ?? null, options.limit ?? 100],
    );
    return rows.map((r) => ({
      id: r.id,
      queue: r.source_name,
      data: r.data,
      error: r.source_output,
      attempts: (r.source_retry_count ?? 0) + 1,
      firstQueuedAt: r.source_created_on,
      deadAt: r.created_on,
    }));
  }

  /** Puts dead-lettered jobs back on their queues with fresh attempts: the given ones, or all. */
  async replay(ids?: string[]): Promise<number> {
    if (ids?.length === 0) return 0;
    let moved = 0;
    for (;;) {
      const n = await this.boss.redrive(DEAD_LETTER_QUEUE, { ids, limit: 1000 });
      moved += n;
      if (n < 1000 || ids) return moved;
    }
  }

  /** Forgets event keys older than the CRMs' redelivery window. */
  async pruneReceived(olderThanDays: number): Promise<number> {
    const { rows } = await this.db.query<{ n: number }>(
      `WITH gone AS (DELETE FROM "${this.schema}".received_event WHERE received_at < now() - make_interval(days => $1) RETURNING 1)
       SELECT count(*)::int AS n FROM gone`,
      [olderThanDays],
    );
    return rows[0]?.n ?? 0;
  }

  async stop(): Promise<void> {
    await this.boss.stop({ graceful: false, close: false });
  }
}

/** pg-boss 12 answers settle calls with `{ requested, affected, ... }` but declares the type empty. */
function affected(response: object): number {
  const n = (response as { affected?: unknown }).affected;
  return typeof n === 'number' ? n : 0;
}

type ErrorLike = { message?: unknown; code?: unknown; kind?: unknown; retryable?: unknown };

function isFinal(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as ErrorLike).retryable === false;
}

/** Errors and error-shaped objects (`{ code, message, retryable }`) keep their code and message. */
function describeError(error: unknown): { message: string; code?: string; kind?: string } {
  if (typeof error === 'object' && error !== null && typeof (error as ErrorLike).message === 'string') {
    const e = error as ErrorLike;
    return {
      message: e.message as string,
      ...(typeof e.code === 'string' ? { code: e.code } : {}),
      ...(typeof e.kind === 'string' ? { kind: e.kind } : {}),
    };
  }
  return { message: String(error) };
}
