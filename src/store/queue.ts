/**
 * The durable job queue: pg-boss in the store's schema, plus a table of every event key ever
 * received. pg-boss singleton keys only hold while a job is live, and the CRMs redeliver events
 * hours after the first delivery was processed, so deduplication is a unique index of our own,
 * written in the same statement as the jobs: an event is either stored with its job or not at all.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { PGlite } from '@electric-sql/pglite';
import type pg from 'pg';
import { PgBoss, fromPglite, type Db as BossDb } from 'pg-boss';
import type { Priority } from '../core/limiter.js';
import { logger } from '../logger.js';
import type { Db } from './db.js';
import { StoreError } from './errors.js';
import type { ParkedHow } from './parked-reason.js';
import { insertJobs, type NewJob } from './job-insert.js';
import { JobTable, type JobStanding } from './job-table.js';
import { describeChanges, policyChanges, type PolicyOptions } from './queue-policy.js';
import {
  DEAD_LETTER_QUEUE,
  type ClaimedJob,
  type DeadLetter,
  type QueueCounts,
  type RecordRef,
  type RetryingJob,
} from './queue-types.js';

export {
  DEAD_LETTER_QUEUE,
  type ClaimedJob,
  type DeadLetter,
  type QueueCounts,
  type RecordRef,
} from './queue-types.js';

const log = logger('store.queue');

/** How a priority is stored in the job table (pg-boss claims the highest first). */
export const PRIORITY: Record<Priority, number> = { interactive: 10, bulk: 0 };

/**
 * The priority a stored number stands for: anything from halfway to interactive's number up, so a
 * value written by another encoding (pg-boss's default 0, a hand-made job) still reads as one of the two.
 */
export function priorityOf(stored: number): Priority {
  return stored >= PRIORITY.interactive / 2 ? 'interactive' : 'bulk';
}

export interface QueueSettings {
  /** Attempts before a job is parked in the dead letter, the first one included. */
  maxAttempts: number;
  /** First retry delay; each later one doubles (with jitter) up to retryDelayMaxSeconds. */
  retryDelaySeconds: number;
  retryDelayMaxSeconds: number;
  /**
   * Last resort: a job whose holder has not beaten its heartbeat for this long is failed (an
   * attempt spent) and handed out again. Dead holders are normally found sooner by reclaimStale.
   */
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

export function hashEventKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

interface Waiting {
  jobs: JobInput[];
  resolve: (result: EnqueueResult) => void;
  reject: (error: unknown) => void;
}
interface CommitGroup {
  waiting: Waiting[];
  /** Commits under way; each takes everything that waits when it starts. */
  committing: number;
}
/** Most jobs one group commit takes (one batch is never split). */
const MAX_GROUP_JOBS = 1_000;
/**
 * Commits of one queue under way at once: the next group gathers while one is under way, so under load
 * groups grow rather than commits multiply. Three at once cost a fifth more CPU per delivery (docs/benchmarks.md).
 */
const MAX_COMMITS_PER_QUEUE = 1;

export class JobQueue {
  private readonly ready = new Map<string, Promise<void>>();
  private readonly groups = new Map<string, CommitGroup>();

  private readonly table: JobTable;

  private constructor(
    private readonly db: Db,
    private readonly schema: string,
    private readonly boss: PgBoss,
    readonly settings: QueueSettings,
  ) {
    this.table = new JobTable(db, schema);
  }

  /**
   * Installs or upgrades pg-boss in `schema` (under its own advisory lock) and starts its supervisor.
   * pg-boss shares the store's connections: the pool on a server, the one PGlite session otherwise.
   */
  static async start(
    db: Db,
    schema: string,
    settings: QueueSettings,
    connection: { pool: pg.Pool } | { pglite: PGlite },
  ): Promise<JobQueue> {
    // pg-boss sends multi-statement scripts and reads pg's raw (array) results, so it gets the pool itself.
    const bossDb: BossDb =
      'pglite' in connection
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
    await queue.table.ensureIndexes();
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
      throw new StoreError('invalid_input', `Queue name "${name}" may hold only letters, digits, _ . - and /.`, {
        queue: name,
      });
    }
    const s = this.settings;
    const wanted: PolicyOptions =
      name === DEAD_LETTER_QUEUE
        ? { retentionSeconds: s.deadLetterRetentionDays * 86_400 }
        : {
            retryLimit: s.maxAttempts - 1,
            retryDelay: s.retryDelaySeconds,
            retryDelayMax: s.retryDelayMaxSeconds,
            expireInSeconds: s.expireInSeconds,
          };
    const created =
      name === DEAD_LETTER_QUEUE ? wanted : { ...wanted, retryBackoff: true, deadLetter: DEAD_LETTER_QUEUE };
    // Does nothing when the queue exists: its policy is then whatever an earlier start stored.
    await this.boss.createQueue(name, created);
    const stored = await this.boss.getQueue(name);
    const { update, changes } = policyChanges(stored ?? {}, wanted);
    if (changes.length === 0) return;
    // New jobs take the queue's policy when they are inserted; jobs already stored keep theirs.
    await this.boss.updateQueue(name, update);
    const message = `the stored policy of queue ${name} was updated to the settings: ${describeChanges(changes)}`;
    log.info({ queue: name, changes }, message);
  }

  /**
   * Stores jobs in one statement: event keys seen before (in this batch or ever) are dropped,
   * the rest become jobs. Safe to call again with the same batch after a failure.
   *
   * Group commit: batches that arrive while the commits of their queue are under way wait for one
   * to end and then go together, in one transaction (each still gets its own counts). A lone batch
   * goes at once; under load, ten webhook deliveries cost one commit instead of ten.
   */
  async enqueue<T extends RecordRef>(queue: string, jobs: JobInput<T>[]): Promise<EnqueueResult> {
    await this.ensureQueue(queue);
    if (jobs.length === 0) return { ids: [], enqueued: 0, duplicates: 0 };
    return new Promise<EnqueueResult>((resolve, reject) => {
      let group = this.groups.get(queue);
      if (!group) {
        group = { waiting: [], committing: 0 };
        this.groups.set(queue, group);
      }
      group.waiting.push({ jobs, resolve, reject });
      if (group.committing < MAX_COMMITS_PER_QUEUE) void this.commitGroups(queue, group);
    });
  }

  private async commitGroups(queue: string, group: CommitGroup): Promise<void> {
    group.committing++;
    try {
      while (group.waiting.length > 0) {
        const batches: Waiting[] = [];
        let size = 0;
        while (
          group.waiting.length > 0 &&
          (batches.length === 0 || size + group.waiting[0]!.jobs.length <= MAX_GROUP_JOBS)
        ) {
          const next = group.waiting.shift()!;
          batches.push(next);
          size += next.jobs.length;
        }
        try {
          const results = await this.commit(
            queue,
            batches.map((b) => b.jobs),
          );
          batches.forEach((b, i) => b.resolve(results[i]!));
        } catch (error) {
          for (const b of batches) b.reject(error);
        }
        // Let the callers answer before the next statement goes out: sending it wakes the Postgres
        // backend, which on a busy machine runs ahead of the answers (p99 20-24 ms against 24-27).
        await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      group.committing--;
    }
  }

  /**
   * One statement for several callers' batches, so one round trip (src/store/job-insert.ts). The first
   * job with a key, across all batches in order, is the one that may be new; the jobs carry their own
   * ids so that the ones inserted can be told from the ones dropped. A result per batch, in order.
   */
  private async commit(queue: string, batches: JobInput[][]): Promise<EnqueueResult[]> {
    const results: EnqueueResult[] = batches.map((jobs) => ({ ids: [], enqueued: 0, duplicates: jobs.length }));
    const seen = new Set<string>();
    const candidates: (NewJob & { batch: number })[] = [];
    batches.forEach((jobs, batch) => {
      for (const job of jobs) {
        const keyHash = job.dedupKey === undefined ? undefined : hashEventKey(job.dedupKey);
        if (keyHash !== undefined) {
          if (seen.has(keyHash)) continue;
          seen.add(keyHash);
        }
        candidates.push({
          batch,
          id: randomUUID(),
          keyHash,
          data: job.data,
          priority: PRIORITY[job.priority ?? 'interactive'],
          startAfter: job.startAfter,
        });
      }
    });
    const inserted = await insertJobs(this.db, this.schema, queue, candidates);
    for (const c of candidates) {
      if (!inserted.has(c.id)) continue;
      const result = results[c.batch]!;
      result.enqueued++;
      result.duplicates--;
      result.ids.push(c.id);
    }
    return results;
  }

  /**
   * Claims up to `limit` waiting jobs of one queue, highest priority first, for one batch of work.
   * Each must then be completed or failed; one left alone past expireInSeconds is handed out again.
   */
  async claim<T extends RecordRef = RecordRef>(queue: string, limit: number): Promise<ClaimedJob<T>[]> {
    await this.ensureQueue(queue);
    const jobs = await this.boss.fetch<T>(queue, { batchSize: limit, includeMetadata: true });
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
    const result = await this.boss.complete(
      queue,
      jobs.map((j) => ({ id: j.id, retryCount: j.retryCount })),
    );
    return affected(result);
  }

  /**
   * Fails one claimed job: retried later with backoff, or parked in the dead letter after the last
   * attempt. An error that says it cannot succeed on retry (`retryable: false`) is parked at once.
   */
  async fail(queue: string, job: Pick<ClaimedJob, 'id' | 'retryCount'>, error: unknown): Promise<boolean> {
    if (isFinal(error)) return this.park(queue, job, error);
    const last = job.retryCount + 1 >= this.settings.maxAttempts;
    const output = describeError(error, last ? 'attempts_exhausted' : undefined);
    const result = await this.boss.fail(queue, { id: job.id, retryCount: job.retryCount }, output);
    return affected(result) > 0;
  }

  /** Sends a claimed job straight to the dead letter with this error, whatever attempts it has left. */
  async park(queue: string, job: Pick<ClaimedJob, 'id' | 'retryCount'>, error: unknown): Promise<boolean> {
    // With no retries left, pg-boss's own fail moves the job to the dead letter and keeps the error.
    await this.table.spendAllAttempts(queue, job);
    const output = describeError(error, 'not_retryable');
    const result = await this.boss.fail(queue, { id: job.id, retryCount: job.retryCount }, output);
    return affected(result) > 0;
  }

  /**
   * Puts claimed jobs back without spending an attempt (a budget pause, a CRM rate limit), to be
   * handed out again after `delayMs`. Returns how many were still this worker's.
   */
  release(queue: string, jobs: Pick<ClaimedJob, 'id' | 'retryCount'>[], delayMs: number): Promise<number> {
    return this.table.release(queue, jobs, delayMs);
  }

  /** The holder's heartbeat for jobs it still works on or holds (see JobTable.heartbeat). */
  heartbeat(queue: string, jobs: Pick<ClaimedJob, 'id' | 'retryCount'>[]): Promise<number> {
    return this.table.heartbeat(queue, jobs);
  }

  /** Hands back jobs whose holder stopped beating, unspent (see JobTable.reclaimStale). */
  reclaimStale(queues: string[], staleSeconds: number, maxReclaims = 3): Promise<number> {
    return this.table.reclaimStale(queues, staleSeconds, maxReclaims);
  }

  /** Counts by state for every queue (the dead letter included); depth is what waits to run. */
  counts(): Promise<QueueCounts[]> {
    return this.table.counts();
  }

  /** Waiting and running jobs of every queue but the dead letter, and the oldest waiting one's age. */
  backlog(): Promise<{ depth: number; oldestAgeSeconds: number | null }> {
    return this.table.backlog();
  }

  depth(queue: string): Promise<number> {
    return this.table.depth(queue);
  }

  /** Jobs that used up their attempts, newest first, with the last error each one met. */
  deadLetters<T extends RecordRef = RecordRef>(
    options: { queue?: string; limit?: number } = {},
  ): Promise<DeadLetter<T>[]> {
    return this.table.deadLetters<T>(options);
  }

  /** Jobs that failed and wait for another attempt (see JobTable.retrying). */
  retrying<T extends RecordRef = RecordRef>(options: { limit?: number } = {}): Promise<RetryingJob<T>[]> {
    return this.table.retrying<T>(options);
  }

  /** Where these jobs of one queue stand and why they were queued (see JobTable.lookup). */
  lookup(queue: string, ids: string[]): Promise<Map<string, JobStanding>> {
    return this.table.lookup(queue, ids);
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
      `WITH gone AS (DELETE FROM "${this.schema}".received_event
       WHERE received_at < now() - make_interval(days => $1) RETURNING 1)
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

/**
 * Errors and error-shaped objects (`{ code, message, retryable }`) keep their code and message; a failure
 * that parks the job also says how (see parked-reason.ts).
 */
function describeError(
  error: unknown,
  parked?: ParkedHow,
): { message: string; code?: string; kind?: string; parked?: ParkedHow } {
  const how = parked ? { parked } : {};
  if (typeof error === 'object' && error !== null && typeof (error as ErrorLike).message === 'string') {
    const e = error as ErrorLike;
    return {
      message: e.message as string,
      ...(typeof e.code === 'string' ? { code: e.code } : {}),
      ...(typeof e.kind === 'string' ? { kind: e.kind } : {}),
      ...how,
    };
  }
  return { message: String(error), ...how };
}
